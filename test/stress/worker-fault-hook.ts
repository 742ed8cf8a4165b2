// Test-only fault injection, loaded with `node --import <this file> dist/app/main.js` (never by the
// server itself): on SIGUSR2 the main thread makes shard worker 0 fail, as HCD_TEST_FAULT says:
//   throw     — the worker throws an uncaught error (the Worker's "error" event)
//   exit      — the worker calls process.exit(3) (its "exit" event)
//   terminate — the main thread terminates the worker
// It works by wrapping node:worker_threads' Worker before the server imports it; workers inherit
// --import, so the same file installs the worker-side listener. The fault travels on a BroadcastChannel:
// a listener on parentPort this early would take the pool's first messages before comlink listens.
import { createRequire, syncBuiltinESMExports } from "node:module";
import type { Worker as WorkerType } from "node:worker_threads";

const require = createRequire(import.meta.url);
const threads = require("node:worker_threads") as typeof import("node:worker_threads");
const CHANNEL = "hcd-test-fault";

if (threads.isMainThread) {
  const workers: WorkerType[] = [];
  const Original = threads.Worker;
  threads.Worker = class extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      workers.push(this);
    }
  };
  syncBuiltinESMExports(); // the server's `import { Worker } from "node:worker_threads"` now sees the wrapper
  const channel = new threads.BroadcastChannel(CHANNEL);
  channel.unref();
  process.on("SIGUSR2", () => {
    const kind = process.env.HCD_TEST_FAULT ?? "throw";
    if (kind === "terminate") void workers[0]?.terminate();
    else channel.postMessage({ kind });
  });
} else if ((threads.workerData as { index?: number } | undefined)?.index === 0) {
  const channel = new threads.BroadcastChannel(CHANNEL);
  channel.unref();
  channel.onmessage = (event: unknown) => {
    const kind = (event as { data?: { kind?: string } }).data?.kind;
    if (kind === "throw")
      setImmediate(() => {
        throw new Error("injected fault: uncaught error in a shard worker");
      });
    if (kind === "exit") process.exit(3);
  };
}
