// Reads inbound messages on a worker thread: MIME decoding and HTML-to-text of a message up to 10 MiB
// must not hold the main thread, which answers every ping. One message at a time, each with a time limit:
// a message that exceeds it has its worker replaced and is refused, and the next one gets a fresh worker.
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { MailContent } from "./message.ts";

/** A parsed message: what keywords are searched in, and the digest of its bytes (a retry has the same). */
export type ReadMessage = { readonly content: MailContent; readonly digest: string };

/** Main thread → worker. */
export type ReadRequest = { readonly id: number; readonly raw: Uint8Array };
/** Worker → main thread. */
export type ReadReply =
  | { readonly id: number; readonly ok: true; readonly content: MailContent; readonly digest: string }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** The message itself can't be read (malformed, or over the time limit): the same bytes would fail again. */
export class UnreadableMail extends Error {
  override get name() {
    return "UnreadableMail";
  }
}

export type MailReader = {
  /** Resolves with the parsed message; rejects with UnreadableMail, or another error for a fault of ours. */
  read(raw: Uint8Array): Promise<ReadMessage>;
  close(): Promise<void>;
};

export const DEFAULT_READ_TIMEOUT_MS = 30_000;

type Job = { readonly raw: Uint8Array; resolve(message: ReadMessage): void; reject(error: Error): void };

/** Returns a reader with one worker thread, started on the first message. */
export function startMailReader(options: { timeoutMs?: number } = {}): MailReader {
  const timeoutMs = options.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const script = fileURLToPath(new URL("./mail-read.worker.js", import.meta.url));
  const queue: Job[] = [];
  let worker: Worker | null = null;
  let current: { job: Job; id: number; timer: NodeJS.Timeout } | null = null;
  let nextId = 0;
  let closed = false;

  const finish = (outcome: { message: ReadMessage } | { error: Error }) => {
    if (current === null) return;
    clearTimeout(current.timer);
    const { job } = current;
    current = null;
    if ("message" in outcome) job.resolve(outcome.message);
    else job.reject(outcome.error);
    startNext();
  };
  const discardWorker = () => {
    const old = worker;
    worker = null;
    if (old !== null) void old.terminate();
  };
  const spawn = (): Worker => {
    const started = new Worker(script);
    started.unref(); // the listener's sockets keep the process alive, not an idle parser
    started.on("message", (reply: ReadReply) => {
      if (current === null || reply.id !== current.id) return;
      finish(reply.ok ? { message: { content: reply.content, digest: reply.digest } } : { error: new UnreadableMail(reply.message) });
    });
    const lost = (error: Error) => {
      if (worker !== started) return;
      worker = null;
      finish({ error });
    };
    started.on("error", lost);
    started.on("exit", (code) => lost(new Error(`the mail reader exited with code ${code}`)));
    return started;
  };
  const startNext = () => {
    if (current !== null || closed) return;
    const job = queue.shift();
    if (job === undefined) return;
    worker ??= spawn();
    const id = nextId++;
    const timer = setTimeout(() => {
      discardWorker(); // it may be stuck in this message: the next one gets a fresh worker
      finish({ error: new UnreadableMail(`not read within ${timeoutMs} ms`) });
    }, timeoutMs);
    current = { job, id, timer };
    worker.postMessage({ id, raw: job.raw } satisfies ReadRequest); // a copy: the caller still needs the bytes
  };

  return {
    read(raw) {
      if (closed) return Promise.reject(new Error("the mail reader is closed"));
      return new Promise((resolve, reject) => {
        queue.push({ raw, resolve, reject });
        startNext();
      });
    },
    async close() {
      closed = true;
      const closing = new Error("the mail reader is closed");
      for (const job of queue.splice(0)) job.reject(closing);
      finish({ error: closing });
      const old = worker;
      worker = null;
      if (old !== null) await old.terminate();
    },
  };
}
