// The directory's writes when the server acknowledges slower than the first ack timeout (a nats-server
// whose queue is long under load), shown with a real nats-server behind a TCP relay that holds every chunk:
// each write is stored once and acknowledged, not failed after the retry time while every attempt gave up
// before its acknowledgement could come.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { DirectoryReplica } from "../../cluster/directory-replica.ts";
import { project } from "../helpers.ts";
import { faultRelay } from "../stress/fault-relay.ts";
import { withNatsServer } from "./held-appends.ts";

const HOLD_MS = 400; // each chunk, each way: a round trip takes 800 ms or more
const FIRST_ACK_TIMEOUT_MS = 300;
const PROJECTS = 20;

test("writes acknowledged later than the first ack timeout are each stored once and published", async () => {
  await withNatsServer("the directory's writes over a slow link", async (connectTo, urls) => {
    const direct = await connectTo();
    const target = new URL(urls[0]);
    const relay = await faultRelay({ host: target.hostname, port: Number(target.port) });
    const slowConnection = await connect({ servers: [relay.url], maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    try {
      const writer = await DirectoryReplica.open({
        connection: slowConnection,
        replicas: 1,
        ackTimeoutMs: FIRST_ACK_TIMEOUT_MS,
        retryForMs: 20_000,
      });
      relay.slow(HOLD_MS);
      const projects = Array.from({ length: PROJECTS }, (_, i) => project({ name: `slow ${i}` }));
      const revision = await writer.publish({ projects, checks: [], deletedChecks: [] });
      relay.slow(0);
      // the bucket holds each project once: the resent writes were duplicates (same message id), not new revisions
      const stream = await (await jetstreamManager(direct)).streams.info(`KV_${writer.bucket}`);
      assert.is(stream.state.messages, PROJECTS);
      assert.is(revision, stream.state.last_seq);
      const reader = await DirectoryReplica.open({ connection: direct, replicas: 1 });
      for (const p of projects) assert.is(reader.projectByPingKey(p.pingKey)?.id, p.id);
      await Promise.all([writer.close(), reader.close()]);
    } finally {
      await slowConnection.close().catch(() => {});
      relay.close();
    }
  });
});

test.run();
