// What the Shard hands the log for each ping: the record's fields, the body cut to the project's
// ping_body_limit (bytes), the user agent cut to its limit, and how many pings the log keeps.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { PingWrite } from "../../engine/changes.ts";
import type { PingCommand } from "../../engine/commands.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (body: Uint8Array | null) => (body === null ? null : new TextDecoder().decode(body));

/** A check in a project that keeps 7 pings and 5 bytes of each body; returns how one ping is written. */
function written(extra: Partial<PingCommand>, project = { pingLogLimit: 7, pingBodyLimit: 5 }): PingWrite {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p", project), T0);
  const made = shard.createCheck("p", { name: "job", timeoutMs: HOUR, graceMs: MINUTE }, [], T0);
  if (!made.ok) throw new Error(JSON.stringify(made.failure));
  shard.ping(pingOf({ uuid: made.value.check.uuid }, T0 + MINUTE));
  shard.takeChanges();
  shard.ping(pingOf({ uuid: made.value.check.uuid }, T0 + 2 * MINUTE, extra));
  const { pings } = shard.takeChanges();
  assert.is(pings.length, 1);
  return pings[0];
}

test("the record names the ping's number, instant, kind and request; the log keeps the project's count", () => {
  const rid = "0a1b2c3d-0000-4000-8000-000000000001";
  const write = written({ signal: "fail", exitStatus: 3, method: "POST", scheme: "https", remoteAddr: "192.0.2.9", ua: "curl/8", rid });
  assert.equal(write.record, {
    n: 2,
    at: T0 + 2 * MINUTE,
    kind: "fail",
    scheme: "https",
    remoteAddr: "192.0.2.9",
    method: "POST",
    ua: "curl/8",
    rid,
    exitStatus: 3,
    bodySize: 0,
  });
  assert.is(write.keep, 7);
  assert.is(write.body, null);
});

test("a body longer than ping_body_limit is cut to its first bytes; one within it is kept whole", () => {
  const long = written({ method: "POST", body: bytes("hello world") });
  assert.equal([text(long.body), long.record.bodySize], ["hello", 5]);
  const exact = written({ method: "POST", body: bytes("12345") });
  assert.equal([text(exact.body), exact.record.bodySize], ["12345", 5]);
  const short = written({ method: "POST", body: bytes("ok") });
  assert.equal([text(short.body), short.record.bodySize], ["ok", 2]);
});

test("an empty body, or a project that keeps no body bytes, stores no body", () => {
  const empty = written({ method: "POST", body: new Uint8Array(0) });
  assert.equal([empty.body, empty.record.bodySize], [null, 0]);
  const none = written({ method: "POST", body: bytes("hello") }, { pingLogLimit: 7, pingBodyLimit: 0 });
  assert.equal([none.body, none.record.bodySize], [null, 0]);
});

test("the user agent is cut to 200 characters", () => {
  const ua = "a".repeat(150) + "b".repeat(100);
  assert.is(written({ ua }).record.ua, "a".repeat(150) + "b".repeat(50));
});

test("a ping without a body is classified as one with an empty body: no keyword matches it, so it is ignored", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  const made = shard.createCheck("p", { name: "job", timeoutMs: HOUR, graceMs: MINUTE, filterHttpBody: true, failureKw: "here" }, [], T0);
  if (!made.ok) throw new Error(JSON.stringify(made.failure));
  const uuid = made.value.check.uuid;
  shard.ping(pingOf({ uuid }, T0 + MINUTE, { body: null }));
  shard.ping(pingOf({ uuid }, T0 + 2 * MINUTE, { body: bytes("Stryker was here!") }));
  assert.equal(
    shard.takeChanges().pings.map((p) => p.record.kind),
    ["ign", "fail"],
  );
});

test.run();
