// Reading one subject of a stream whole, up to a sequence, through a short-lived ephemeral consumer: how the
// audit log and the sent notifications (each a small, bounded subject) list what they keep.
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import { within } from "./within.ts";

/** How long a read waits for its next message before it fails (the stream without a leader). */
const READ_IDLE_MS = 10_000;

/** The subject's messages up to sequence `to` (which the caller saw stored), oldest first. */
export async function readSubjectUpTo(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  subject: string,
  to: number,
): Promise<{ seq: number; data: Uint8Array }[]> {
  const created = await jsm.consumers.add(stream, {
    filter_subject: subject,
    deliver_policy: DeliverPolicy.All,
    ack_policy: AckPolicy.None,
    mem_storage: true,
    inactive_threshold: nanos(30_000), // left behind by a reader that died: removed
  });
  const consumer = await js.consumers.get(stream, created.name);
  const messages = await consumer.consume({ max_messages: 1_000 });
  const out: { seq: number; data: Uint8Array }[] = [];
  const iterator = messages[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step: IteratorResult<JsMsg> = await within(
        iterator.next(),
        READ_IDLE_MS,
        `${stream}: no message of ${subject} for ${READ_IDLE_MS} ms`,
      );
      if (step.done === true || step.value.seq > to) break;
      out.push({ seq: step.value.seq, data: step.value.data });
      if (step.value.seq === to) break;
    }
  } finally {
    messages.stop();
    void jsm.consumers.delete(stream, created.name).catch(() => {});
  }
  return out;
}

/** The subject's messages, oldest first; none when it has none. */
export async function readSubject(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
  subject: string,
): Promise<{ seq: number; data: Uint8Array }[]> {
  const newest = await jsm.streams.getMessage(stream, { last_by_subj: subject });
  return newest === null ? [] : readSubjectUpTo(js, jsm, stream, subject, newest.seq);
}
