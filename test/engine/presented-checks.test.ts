import { test } from "uvu";
import * as assert from "uvu/assert";
import { PresentedChecks } from "../../host/presented-checks.ts";
import type { Check } from "../../engine/model.ts";
import { DAY, HOUR } from "../../engine/model.ts";
import type { CheckView } from "../../host/check-json.ts";
import { presentCheck } from "../../host/check-json.ts";
import { check } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const view = (overrides: Partial<CheckView> = {}): CheckView => ({
  at: T0,
  siteRoot: "http://localhost:8000",
  readonly: false,
  emailDomain: null,
  ...overrides,
});
/** A list's bytes as text (UTF-8). */
const listText = (presented: PresentedChecks, checks: readonly Check[], v: CheckView) =>
  new TextDecoder().decode(presented.listJson(checks, v));
const plain = (checks: readonly Check[], v: CheckView) => JSON.stringify({ checks: checks.map((c) => presentCheck(c, v)) });

test("a list is exactly JSON.stringify of the presented checks, first and again from the cache", () => {
  const presented = new PresentedChecks();
  const checks = Array.from({ length: 50 }, (_, i) =>
    check({
      name: `job "${i}" ✓`,
      tags: "a b",
      status: i % 3 === 0 ? "up" : "new",
      lastPingAt: i % 3 === 0 ? T0 - HOUR : null,
      channels: i % 2 ? ["c1", "c0"] : [],
      kind: i % 5 === 0 ? "cron" : "simple",
      schedule: "0 * * * *",
    }),
  );
  for (const v of [view(), view({ readonly: true }), view({ emailDomain: "hc.example" }), view({ siteRoot: "https://other" })]) {
    assert.is(listText(presented, checks, v), plain(checks, v));
    assert.is(listText(presented, checks, v), plain(checks, v), "cached");
  }
  assert.is(listText(presented, [], view()), '{"checks":[]}');
});

test("what changes shows: a new state of a check, and its status as time passes", () => {
  const presented = new PresentedChecks();
  const first = check({ status: "up", nPings: 1, lastPingAt: T0, timeoutMs: DAY, graceMs: HOUR });
  const other = check({ status: "up", nPings: 1, lastPingAt: T0, timeoutMs: 2 * DAY, graceMs: HOUR });
  assert.is(listText(presented, [first, other], view()), plain([first, other], view()));
  const pinged = { ...first, nPings: 2, lastPingAt: T0 + HOUR }; // a ping makes a new object
  const later = view({ at: T0 + DAY + 30 * 60_000 }); // `other` still up; `first` pinged at +1 h: up too
  assert.is(listText(presented, [pinged, other], later), plain([pinged, other], later));
  // the same objects, later: `other` is past its timeout (grace), `pinged` past its grace (down on read)
  const inGrace = view({ at: T0 + 2 * DAY + 30 * 60_000 });
  const listed = (JSON.parse(listText(presented, [pinged, other], inGrace)) as { checks: { status: string; n_pings: number }[] }).checks;
  assert.equal(
    listed.map((c) => [c.status, c.n_pings]),
    [
      ["down", 2],
      ["grace", 1],
    ],
  );
  assert.is(listText(presented, [pinged, other], inGrace), plain([pinged, other], inGrace));
});

test.run();
