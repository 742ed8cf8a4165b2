// Worker entry: one ShardHost exposed to the main thread with comlink.
import { parentPort, workerData } from "node:worker_threads";
import { expose, transfer } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { ShardSetup } from "./shard-setup.ts";
import { openShardHost } from "./shard-setup.ts";
import type { ShardHost } from "../host/shard-host.ts";

if (!parentPort) throw new Error("shard.worker must run as a worker thread");
const ready: Promise<ShardHost> = openShardHost(workerData as ShardSetup);
// A failed start surfaces as the Worker's "error" event, with its message, in the pool.
ready.catch((error: unknown) => setImmediate(() => { throw error; }));

// Methods whose result is a fresh buffer nothing here keeps: it moves to the main thread, not copied.
const MOVED_RESULTS = new Set(["listChecksJson"]);

// Every call waits for the host to be open, so the pool may call at once.
const api = new Proxy({}, {
  get: (_target, name: string) => name === "then" ? undefined : async (...args: unknown[]) => {
    const host = await ready;
    const method = (host as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
    if (typeof method !== "function") throw new Error(`no such shard method: ${name}`);
    const result = method.apply(host, args);
    const whole = result instanceof Uint8Array && result.byteOffset === 0 && result.byteLength === result.buffer.byteLength;
    return MOVED_RESULTS.has(name) && whole ? transfer(result, [result.buffer]) : result;
  },
});
expose(api, nodeEndpoint(parentPort));
