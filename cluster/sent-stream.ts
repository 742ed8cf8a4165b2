// The cluster's delivered notifications for each check's page: a replicated stream with a subject per check,
// its newest KEPT_PER_CHECK kept for a year, recorded under the outbox entry's id (a second record is a duplicate).
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { SentNotice } from "../engine/changes.ts";
import { KEPT_PER_CHECK } from "../persistence/sent-log.ts";
import { ensureStream, managerOf, newestPerSubject } from "./jetstream-setup.ts";
import { resendUnanswered } from "./resend.ts";
import { readSubject } from "./subject-reader.ts";

const KEPT_FOR_MS = 365 * 86_400_000; // a deleted check's records go at the latest then
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export type SentStream = {
  /** Keeps `notice` among its check's delivered notifications; resolves once stored. */
  record(notice: SentNotice): Promise<void>;
  /** A check's delivered notifications, newest first. */
  list(checkUuid: string): Promise<SentNotice[]>;
};

/** Opens (creating unless it exists) the stream of delivered notifications. */
export async function openSentStream(options: {
  connection: NatsConnection;
  replicas: number;
  stream?: string;
  subjectPrefix?: string;
  keptPerCheck?: number;
}): Promise<SentStream> {
  const stream = options.stream ?? "hcd-sent";
  const prefix = options.subjectPrefix ?? "hcd.sent";
  const js = jetstream(options.connection);
  const jsm = await managerOf(options.connection);
  await ensureStream(jsm, {
    name: stream,
    num_replicas: options.replicas,
    ...newestPerSubject(prefix, options.keptPerCheck ?? KEPT_PER_CHECK, KEPT_FOR_MS),
  });
  const subjectOf = (checkUuid: string) => {
    if (!/^[A-Za-z0-9_-]+$/.test(checkUuid)) throw new Error(`not a check uuid a subject can carry: ${JSON.stringify(checkUuid)}`);
    return `${prefix}.${checkUuid}`;
  };
  return {
    async record(notice) {
      const publish = (timeout: number) =>
        js.publish(subjectOf(notice.checkUuid), utf8.encode(JSON.stringify(notice)), { msgID: notice.id, timeout });
      await resendUnanswered(publish, { timeoutMs: 5_000, forMs: 15_000 });
    },
    async list(checkUuid) {
      const stored = await readSubject(js, jsm, stream, subjectOf(checkUuid));
      return stored.map(({ data }) => JSON.parse(fromUtf8.decode(data)) as SentNotice).reverse();
    },
  };
}
