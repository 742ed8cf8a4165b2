// lmdb-js starts each event-loop turn's write batch with a promise of its own that nobody awaits: when
// that transaction fails (a full disk, EIO) its rejection is unhandled and, by Node's default, ends the
// thread, although every write of the batch already rejected to its caller. This handler drops exactly
// those rejections (and the `commitError` promise each carries); any other unhandled rejection is thrown
// again, so it still ends the thread as before.
const LMDB_COMMIT_FAILED = "Commit failed (see commitError for details)";

let installed = false;

/** Installs the handler once per thread. */
export function tolerateLmdbBatchRejections(): void {
  if (installed) return;
  installed = true;
  process.on("unhandledRejection", (reason) => {
    if (!(reason instanceof Error) || reason.message !== LMDB_COMMIT_FAILED) throw reason;
    const cause = (reason as { commitError?: unknown }).commitError;
    if (cause instanceof Promise) cause.catch(() => {});
  });
}
