// The audit log of a cluster: one replicated JetStream stream with a subject per project
// (`hcd.audit.<project id>`), so a change recorded on any node is listed by every node. The stream keeps
// a project's newest AUDIT_MAX_EVENTS (max_msgs_per_subject) for AUDIT_MAX_AGE_DAYS (max_age), as the
// single-node log does; a page's cursor is the stream sequence of the oldest event it shows.
//
// A page is read from the project's subject up to its cursor (subject-reader.ts): at most AUDIT_MAX_EVENTS
// small messages, read only when someone opens the log.
import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { AuditPage, AuditStore, StoredAuditEvent } from "../host/audit.ts";
import { ServiceUnavailableError } from "../host/unavailable.ts";
import type { AuditLimits } from "../persistence/audit-log.ts";
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
  await ensureStream(jsm, { name: stream, num_replicas: options.replicas, ...newestPerSubject(prefix, options.limits.maxEvents, options.limits.maxAgeMs) });
  const subjectOf = (projectId: string) => `${prefix}.${projectId}`;

  /** The subject's events up to sequence `to` (which the caller saw stored), oldest first. */
  const readUpTo = async (subject: string, to: number): Promise<{ seq: number; event: StoredAuditEvent }[]> =>
    (await readSubjectUpTo(js, jsm, stream, subject, to)).map(({ seq, data }) => ({ seq, event: JSON.parse(fromUtf8.decode(data)) as StoredAuditEvent }));

  return {
    async append(projectId, event) {
      const msgID = randomUUID(); // the same on every attempt: a resent event the stream already holds is stored once
      const publish = (timeout: number) => js.publish(subjectOf(projectId), utf8.encode(JSON.stringify(event)), { msgID, timeout });
      await resendUnanswered(publish, { timeoutMs: ACK_TIMEOUT_MS, forMs: PUBLISH_ATTEMPTS * ACK_TIMEOUT_MS });
    },
    async page(projectId, opts): Promise<AuditPage> {
      const subject = subjectOf(projectId);
      const newest = await jsm.streams.getMessage(stream, { last_by_subj: subject });
      if (newest === null) return { events: [], next: null };
      const to = opts.before === null ? newest.seq : Math.min(newest.seq, opts.before - 1);
      if (to < 1) return { events: [], next: null };
      const older = (await readUpTo(subject, to)).reverse().slice(0, opts.limit + 1);
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
