// Worker entry: one ShardHost exposed to the main thread with comlink, as its one `apply`.
import { parentPort, workerData } from "node:worker_threads";
import { expose, transfer } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { ShardSetup } from "./shard-setup.ts";
import { openShardHost } from "./shard-setup.ts";
import type { ShardHost } from "../host/shard-host.ts";
import type { ShardDirectory, ShardHandle } from "../host/shard-requests.ts";

if (!parentPort) throw new Error("shard.worker must run as a worker thread");
const ready: Promise<ShardHost> = openShardHost(workerData as ShardSetup);
// A failed start surfaces as the Worker's "error" event, with its message, in the pool.
ready.catch((error: unknown) =>
  setImmediate(() => {
    throw error;
  }),
);

// Every request waits for the host to be open, so the pool may send at once. A list's document and the
// directory's packed checks are fresh buffers nothing here keeps: they move to the main thread instead of
// being copied (a copy of the directory's stayed here, 36 bytes a check, until this thread's next garbage
// collection, which an idle shard may not run for long). Other buffers, such as ping bodies, may be the
// store's, and are copied.
const handle: ShardHandle = {
  apply: async (request) => {
    const result = await (await ready).apply(request);
    if (request.kind === "directory") {
      const { words } = (result as ShardDirectory).checks;
      return whole(words) ? transfer(result, [words.buffer]) : result;
    }
    return request.kind === "listChecksJson" && whole(result) ? transfer(result, [result.buffer]) : result;
  },
};

/** True when `value` is a typed array over the whole of its buffer (so moving the buffer moves nothing else). */
function whole(value: unknown): value is Uint8Array | Uint32Array {
  return (
    (value instanceof Uint8Array || value instanceof Uint32Array) && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength
  );
}
expose(handle, nodeEndpoint(parentPort));
