// Worker entry: one ShardHost exposed to the main thread with comlink, as its one `apply`.
import { parentPort, workerData } from "node:worker_threads";
import { expose, transfer } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { ShardSetup } from "./shard-setup.ts";
import { openShardHost } from "./shard-setup.ts";
import type { ShardHost } from "../host/shard-host.ts";
import type { ShardHandle } from "../host/shard-host.ts";

if (!parentPort) throw new Error("shard.worker must run as a worker thread");
const ready: Promise<ShardHost> = openShardHost(workerData as ShardSetup);
// A failed start surfaces as the Worker's "error" event, with its message, in the pool.
ready.catch((error: unknown) => setImmediate(() => { throw error; }));

// Every request waits for the host to be open, so the pool may send at once. A list's document is a fresh
// buffer nothing here keeps: it moves to the main thread instead of being copied (other buffers, such as
// ping bodies, may be the store's, and are copied).
const handle: ShardHandle = {
  apply: async (request) => {
    const result = await (await ready).apply(request);
    const whole = result instanceof Uint8Array && result.byteOffset === 0 && result.byteLength === result.buffer.byteLength;
    return request.kind === "listChecksJson" && whole ? transfer(result, [result.buffer]) : result;
  },
};
expose(handle, nodeEndpoint(parentPort));
