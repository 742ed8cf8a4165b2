// cluster/nats-errors.ts recognises each failure the cluster code tells apart as the NATS client really
// reports it: each one provoked on a real nats-server (JetStream), and each recogniser checked against the
// others' errors too, so a recogniser that said yes to everything would fail here as well.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { jetstream, jetstreamManager, AckPolicy } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { retriedWhileSettling } from "../../cluster/jetstream-setup.ts";
import {
  consumerNotFound,
  credentialsRefused,
  jetStreamCode,
  noResponders,
  streamNotFound,
  subjectsOverlap,
  timedOut,
  unanswered,
  wrongLastSequence,
} from "../../cluster/nats-errors.ts";
import { connect } from "@nats-io/transport-node";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import { withNatsServer } from "./held-appends.ts";
import { startConfiguredNats } from "./nats-trust-setup.ts";

const RECOGNISERS = {
  noResponders,
  timedOut,
  unanswered,
  wrongLastSequence,
  streamNotFound,
  subjectsOverlap,
  consumerNotFound,
  credentialsRefused,
};
type Name = keyof typeof RECOGNISERS;

/** The names of the recognisers that say yes to `error`, in RECOGNISERS' order. */
function recognisedAs(error: unknown): Name[] {
  return (Object.keys(RECOGNISERS) as Name[]).filter((name) => RECOGNISERS[name](error));
}

/** What `run` rejects with; fails the test when it resolves. */
async function failureOf(what: string, run: () => Promise<unknown>): Promise<unknown> {
  const outcome = await run().then(
    () => ({ resolved: true as const }),
    (error: unknown) => ({ resolved: false as const, error }),
  );
  if (outcome.resolved) assert.unreachable(`${what}: resolved, expected a failure`);
  return outcome.resolved ? undefined : outcome.error;
}

async function stream(nc: NatsConnection, name: string, subjects: string[]): Promise<void> {
  await (await jetstreamManager(nc)).streams.add({ name, subjects });
}

test("core requests: nobody subscribed is no responders, a subscriber that never answers is a timeout", async () => {
  await withNatsServer("the client's request errors", async (connect) => {
    const nc = await connect();
    assert.equal(recognisedAs(await failureOf("a request nobody hears", () => nc.request("nobody.here", "x", { timeout: 2_000 }))), [
      "noResponders",
      "unanswered",
    ]);
    nc.subscribe("silent.one", { callback: () => {} });
    await nc.flush();
    assert.equal(recognisedAs(await failureOf("a request nobody answers", () => nc.request("silent.one", "x", { timeout: 200 }))), [
      "timedOut",
      "unanswered",
    ]);
  });
});

test("JetStream: a publish no stream takes is no responders; a JetStream request nobody answers in time is a timeout", async () => {
  await withNatsServer("JetStream's unanswered errors", async (connect) => {
    const nc = await connect();
    const js = jetstream(nc, { timeout: 2_000 });
    // no stream listens on the subject: what a stream without a leader gives while one is elected
    assert.equal(recognisedAs(await failureOf("a publish to no stream", () => js.publish("no.stream.here", "x"))), [
      "noResponders",
      "unanswered",
    ]);
    // a JetStream API prefix nobody serves, with a subscriber that hears and never answers
    nc.subscribe("$SILENT.API.>", { callback: () => {} });
    await nc.flush();
    const silent = await jetstreamManager(nc, { apiPrefix: "$SILENT.API", checkAPI: false, timeout: 200 });
    assert.equal(recognisedAs(await failureOf("stream info nobody answers", () => silent.streams.info("ANY"))), ["timedOut", "unanswered"]);
  });
});

test("JetStream's refusals: wrong last sequence (stream-wide and per subject), no such stream, subjects taken, no such consumer", async () => {
  await withNatsServer("JetStream's API errors", async (connect) => {
    const nc = await connect();
    await stream(nc, "ERRS", ["errs.>"]);
    const js = jetstream(nc),
      jsm = await jetstreamManager(nc);
    const first = await js.publish("errs.a", "1", { expect: { lastSequence: 0 } });
    assert.is(first.seq, 1);
    const stale = await failureOf("a publish at a stale sequence", () => js.publish("errs.a", "2", { expect: { lastSequence: 0 } }));
    assert.equal([recognisedAs(stale), jetStreamCode(stale)], [["wrongLastSequence"], 10071]);
    const staleSubject = await failureOf("a publish at a stale subject sequence", () =>
      js.publish("errs.a", "2", { expect: { lastSubjectSequence: 0 } }),
    );
    assert.equal([recognisedAs(staleSubject), jetStreamCode(staleSubject)], [["wrongLastSequence"], 10071]);
    const noStream = await failureOf("info of a stream never made", () => jsm.streams.info("NEVER_MADE"));
    assert.equal([recognisedAs(noStream), jetStreamCode(noStream)], [["streamNotFound"], 10059]);
    const noConsumer = await failureOf("info of a consumer never made", () => jsm.consumers.info("ERRS", "never-made"));
    assert.equal([recognisedAs(noConsumer), jetStreamCode(noConsumer)], [["consumerNotFound"], 10014]);
    // a stream name taken with another configuration: a refusal nothing here retries
    const inUse = await failureOf("a stream name in use", () => jsm.streams.add({ name: "ERRS", subjects: ["other.>"] }));
    assert.equal([recognisedAs(inUse), jetStreamCode(inUse)], [[], 10058]);
    // another stream's subjects: what the loser of two creates of one stream at once may be told
    const overlap = await failureOf("a stream over another's subjects", () => jsm.streams.add({ name: "OVER", subjects: ["errs.a"] }));
    assert.equal([recognisedAs(overlap), jetStreamCode(overlap)], [["subjectsOverlap"], 10065]);
    let creates = 0;
    assert.is(
      await failureOf("a create refused", () =>
        retriedWhileSettling(() => {
          creates += 1;
          return jsm.streams.add({ name: "ERRS", subjects: ["other.>"] });
        }),
      ).then(() => creates),
      1,
    );
    await jsm.consumers.add("ERRS", { durable_name: "c", ack_policy: AckPolicy.None });
    assert.is((await jsm.consumers.info("ERRS", "c")).name, "c", "a consumer that exists is found");
  });
});

test("a message get or a KV get that finds nothing answers null (no error: 10037 never reaches the caller)", async () => {
  await withNatsServer("JetStream's absent messages", async (connect) => {
    const nc = await connect();
    await stream(nc, "GETS", ["gets.>"]);
    const jsm = await jetstreamManager(nc);
    assert.is(await jsm.streams.getMessage("GETS", { seq: 5 }), null);
    assert.is(await jsm.streams.getMessage("GETS", { last_by_subj: "gets.none" }), null);
    await jetstream(nc).publish("gets.one", "1");
    assert.is((await jsm.streams.getMessage("GETS", { last_by_subj: "gets.one" }))?.seq, 1);
    const kv = await new Kvm(nc).create("errs-kv", { history: 1 });
    assert.is(await kv.get("absent"), null);
    // the KV client's own compare-and-set refuses with the same code
    const revision = await kv.put("k", "1");
    await kv.put("k", "2");
    const staleUpdate = await failureOf("a KV update at a stale revision", () => kv.update("k", "3", revision));
    assert.equal([recognisedAs(staleUpdate), jetStreamCode(staleUpdate)], [["wrongLastSequence"], 10071]);
    assert.equal(recognisedAs(await failureOf("a KV create of a key that exists", () => kv.create("k", "4"))), ["wrongLastSequence"]);
  });
});

test("a server that refuses the credentials: refused, neither unanswered nor anything else", async () => {
  if (!haveProgram("nats-server", "the client's refusal of credentials")) return;
  const dir = tempDir("hcd-nats-errors-");
  const nats = await startConfiguredNats({ dir: dir.path, config: `authorization { users = [ { user: hcd, password: "right" } ] }` });
  try {
    const refused = await failureOf("a wrong password", () =>
      connect({ servers: [nats.address], user: "hcd", pass: "wrong", reconnect: false }),
    );
    assert.equal(recognisedAs(refused), ["credentialsRefused"]);
    const none = await failureOf("no credentials", () => connect({ servers: [nats.address], reconnect: false }));
    assert.equal(recognisedAs(none), ["credentialsRefused"]);
    const right = await connect({ servers: [nats.address], user: "hcd", pass: "right", reconnect: false });
    await right.close();
  } finally {
    await nats.stop();
    dir.remove();
  }
});

test.run();
