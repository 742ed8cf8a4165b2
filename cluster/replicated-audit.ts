// The cluster's audit log: one replicated stream with a subject per project and group of one actor's one
// action (`hcd.audit.<project id>.<group>`), each group's newest AUDIT_MAX_EVENTS kept for AUDIT_MAX_AGE_DAYS.
import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { AuditPage, AuditStore, StoredAuditEvent } from "../host/audit.ts";
import { ServiceUnavailableError } from "../host/unavailable.ts";
import type { AuditLimits } from "../persistence/audit-log.ts";
import { auditGroupOf } from "../persistence/audit-log.ts";
import { ensureStream, managerOf, newestPerSubject } from "./jetstream-setup.ts";
import { resendUnanswered } from "./resend.ts";
import { readSubjectUpTo } from "./subject-reader.ts";

const ACK_TIMEOUT_MS = 5_000;
const PUBLISH_ATTEMPTS = 3; // first ack waits an event is sent again for
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export type ReplicatedAuditOptions = {
  readonly connection: NatsConnection;
  readonly replicas: number;
  readonly limits: AuditLimits;
  readonly stream?: string;
  readonly subjectPrefix?: string;
};

/** Opens (creating unless it exists) the cluster's audit stream. */
export async function openReplicatedAudit(options: ReplicatedAuditOptions): Promise<AuditStore> {
  const stream = options.stream ?? "hcd-audit";
  const prefix = options.subjectPrefix ?? "hcd.audit";
  const js = jetstream(options.connection);
  const jsm = await managerOf(options.connection);
  const subjects = [`${prefix}.>`]; // a project's groups, and an older version's project subjects
  await ensureStream(jsm, {
    name: stream,
    num_replicas: options.replicas,
    ...newestPerSubject(prefix, options.limits.maxEvents, options.limits.maxAgeMs),
    subjects,
  });
  const info = await jsm.streams.info(stream);
  if (!info.config.subjects.includes(subjects[0])) await jsm.streams.update(stream, { ...info.config, subjects }); // made by an older version: widened
  const subjectOf = (projectId: string, event: StoredAuditEvent) => `${prefix}.${projectId}.${auditGroupOf(event)}`;

  /** The events of `subject` (a wildcard: the project's groups; literal: an older version's), up to the cursor, oldest first. */
  const readUpTo = async (subject: string, before: number | null): Promise<{ seq: number; event: StoredAuditEvent }[]> => {
    const newest = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (newest === null) return [];
    const to = before === null ? newest.seq : Math.min(newest.seq, before - 1);
    if (to < 1) return [];
    return (await readSubjectUpTo(js, jsm, stream, subject, to)).map(({ seq, data }) => ({
      seq,
      event: JSON.parse(fromUtf8.decode(data)) as StoredAuditEvent,
    }));
  };

  return {
    async append(projectId, event) {
      const msgID = randomUUID(); // the same on every attempt: a resent event the stream already holds is stored once
      const publish = (timeout: number) => js.publish(subjectOf(projectId, event), utf8.encode(JSON.stringify(event)), { msgID, timeout });
      await resendUnanswered(publish, { timeoutMs: ACK_TIMEOUT_MS, forMs: PUBLISH_ATTEMPTS * ACK_TIMEOUT_MS });
    },
    async page(projectId, opts): Promise<AuditPage> {
      const [grouped, legacy] = await Promise.all([
        readUpTo(`${prefix}.${projectId}.*`, opts.before),
        readUpTo(`${prefix}.${projectId}`, opts.before),
      ]);
      const older = [...grouped, ...legacy].sort((x, y) => y.seq - x.seq).slice(0, opts.limit + 1);
      const more = older.length > opts.limit;
      if (more) older.pop();
      return { events: older.map(({ seq, event }) => ({ ...event, seq })), next: more ? older[older.length - 1].seq : null };
    },
    async copyTo() {
      throw new ServiceUnavailableError("the cluster's audit log is kept in JetStream: back up the NATS servers' stores");
    },
    async close() {
      // the connection is the node's, closed with it
    },
  };
}
