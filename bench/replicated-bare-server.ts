// The replicated baseline: bare node:http that makes each request durable on a quorum of NATS servers
// before it answers, the least any cluster that acknowledges a ping only once it is replicated must do.
// Each request's record (the durable bare server's: time, method, path, address, user agent, body) joins
// the event-loop turn's group; each group is one message published into this server's own R3 stream,
// groups pipelined (no fence, no wait for the one before), and each request is answered "OK" when its
// group's PubAck arrives. Every server stores what it receives: no forwarding to an owner, no history,
// no state, no parsing. The stream keeps its last 64 MiB. Prints "replicated bare: listening on <url>".
// NATS_URL: the servers (comma-separated, required); BARE_ID: this server's stream (default "0").
// BARE_SHARED_READ=1: every server publishes into one shared stream instead (BARE_ID is not used) and reads all of it back
// with an ordered consumer, decoding nothing: the least a cluster pays whose nodes take their partitions'
// pings from one shared intake stream, as hcd's do (cluster/intake-follower.ts).
import { createServer } from "node:http";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DeliverPolicy, DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { answerOk, readRecord } from "./request-record.ts";

const NEWLINE = Buffer.from("\n");

const natsUrl = process.env.NATS_URL;
if (natsUrl === undefined) throw new Error("NATS_URL is required");
const sharedRead = process.env.BARE_SHARED_READ === "1";
const id = sharedRead ? "SHARED" : (process.env.BARE_ID ?? "0");
const subject = `bare.${id}`;
// the cluster's client options that bear on cost: no stack trace made per request
const nc = await connect({ servers: natsUrl.split(","), noAsyncTraces: true });
const jsm = await jetstreamManager(nc);
await jsm.streams.add({
  name: `BARE_${id}`,
  subjects: [subject],
  num_replicas: 3,
  storage: StorageType.File,
  retention: RetentionPolicy.Limits,
  discard: DiscardPolicy.Old,
  max_bytes: 64 * 1024 * 1024,
});
const js = jetstream(nc);
if (sharedRead) void readAll();

/** Reads every message of the shared stream as it comes, as each hcd node reads the intake stream (nothing decoded: each is dropped). */
async function readAll(): Promise<void> {
  const messages = await (await js.consumers.get(`BARE_${id}`, { deliver_policy: DeliverPolicy.New })).consume({ max_messages: 512 });
  for await (const message of messages) void message;
}

let group: { record: Buffer; res: ServerResponse }[] = [];
let scheduled = false;

/** Publishes the turn's records as one message; answers their requests once it is stored on a quorum. */
function publishGroup(): void {
  scheduled = false;
  const answering = group;
  group = [];
  js.publish(subject, Buffer.concat(answering.flatMap((g) => [g.record, NEWLINE])), { timeout: 10_000 }).then(
    () => {
      for (const { res } of answering) {
        answerOk(res);
      }
    },
    () => {
      for (const { res } of answering) if (!res.destroyed) res.writeHead(503).end();
    },
  );
}

const server = createServer((req, res) => {
  readRecord(req, (record) => {
    group.push({ record, res });
    if (!scheduled) {
      scheduled = true;
      setImmediate(publishGroup);
    }
  });
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`replicated bare: listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => {
  void nc.close().finally(() => process.exit(0));
});
