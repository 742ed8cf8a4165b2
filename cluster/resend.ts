// Sending a JetStream publish (or request) again while it goes unanswered: one rule for every writer whose
// resend is safe (a message id makes a stored write's resend a duplicate, or the request changes nothing).
import { noResponders, timedOut } from "./nats-errors.ts";

/** The first wait for an answer, and how long the sending may go on in all. */
export type ResendLimits = { readonly timeoutMs: number; readonly forMs: number };

const FIRST_PAUSE_MS = 100;
const LONGEST_PAUSE_MS = 1_000;

/**
 * Runs `send` (given how long to wait for its answer) again while it goes unanswered, for at most `forMs`:
 * after no responders (no stream leader while one is elected) after a growing pause; after a timeout at
 * once, with twice the time to answer. A server slow to acknowledge (its queue longer than the first
 * timeout, as under load) still stores each write; with the same timeout every time, each attempt would
 * give up before its acknowledgement came, and the write would fail although stored.
 */
export async function resendUnanswered<T>(send: (timeoutMs: number) => Promise<T>, limits: ResendLimits): Promise<T> {
  const until = Date.now() + limits.forMs;
  let timeoutMs = limits.timeoutMs;
  for (let pause = FIRST_PAUSE_MS; ;) {
    try {
      return await send(Math.max(1, Math.min(timeoutMs, until - Date.now())));
    } catch (error) {
      if (timedOut(error) && Date.now() < until) {
        timeoutMs *= 2;
        continue;
      }
      if (!noResponders(error) || Date.now() + pause > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
    }
  }
}
