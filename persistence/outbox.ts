// The durable outbox of notifications: [id] → OutboxEntry; ids sort by flip time, so key order is age order.
// Entries stored before an entry carried just what its notification shows of the check (NoticeCheck)
// hold the whole check: a Check is a NoticeCheck and more, so they are read and rendered as they are.
//
// A notification of a deadline's flip or of an outage's notice is queued without its last ping (the
// engine has none at hand, and at the top of the hour a shard queues 100,000 of them: reading each
// one's ping there cost 350 ms of 2.4 s, measured). Its check's last ping is the one numbered nPings,
// in the tables by the time the entry is (one commit or an earlier one logged it): the reads below
// fill it in. A ping trimmed from the log since (its check was pinged `keep` times more) is left out.
import type { OutboxEntry } from "../engine/changes.ts";
import type { Key } from "lmdb";
import type { Millis } from "../engine/model.ts";
import { pingBody, pingNumbered } from "./ping-log.ts";
import { ALL, prepare, valuesIn } from "./tables.ts";
import type { Put, Tables } from "./tables.ts";

/** Returns the write that stores (adds or replaces) an outbox entry. */
export function outboxPut(tables: Tables, entry: OutboxEntry): Put {
  return prepare(tables.outbox, [entry.id], entry);
}

/** Returns every outbox entry, ordered by id. */
export function outboxAll(tables: Tables): OutboxEntry[] {
  return valuesIn<OutboxEntry>(tables.outbox, ALL).map((entry) => withLastPing(tables, entry));
}

/** Returns up to `limit` entries with nextAttemptAt <= at that `accept` takes, ordered by id. */
export function outboxDue(tables: Tables, at: Millis, limit: number, accept: (entry: OutboxEntry) => boolean = () => true): OutboxEntry[] {
  const due: OutboxEntry[] = [];
  for (const { value } of tables.outbox.getRange(ALL)) {
    if (due.length >= limit) break;
    const entry = value as OutboxEntry;
    if (entry.nextAttemptAt <= at && accept(entry)) due.push(withLastPing(tables, entry));
  }
  return due;
}

/** Removes a channel's entries (a removed channel is never notified again); call inside a write transaction. */
export function removeChannelEntries(tables: Tables, projectId: string, channelId: string): void {
  // a full scan: the outbox holds only what is still to send, and channels are removed rarely
  const gone: Key[] = [];
  for (const { key, value } of tables.outbox.getRange(ALL)) {
    const entry = value as OutboxEntry;
    if (entry.projectId === projectId && entry.channel.id === channelId) gone.push(key);
  }
  for (const key of gone) tables.outbox.removeSync(key);
}

/** Replaces an entry only while the outbox still holds it (a delivery's retry state must not bring back a removed channel's); call inside a write transaction. */
export function outboxReplace(tables: Tables, entry: OutboxEntry): void {
  if (tables.outbox.doesExist([entry.id])) tables.outbox.putSync([entry.id], entry);
}

/** Returns true when the outbox still holds the entry (it is gone once delivered or its channel removed). */
export function outboxHas(tables: Tables, id: string): boolean {
  return tables.outbox.doesExist([id]);
}

/** Returns the entry with its check's last ping (and body) when it was queued without one (see above). */
function withLastPing(tables: Tables, entry: OutboxEntry): OutboxEntry {
  if (entry.lastPing !== null || entry.check.nPings === 0) return entry;
  const record = pingNumbered(tables, entry.check.uuid, entry.check.nPings);
  if (record === undefined) return entry;
  return { ...entry, lastPing: record, lastPingBody: record.bodySize === 0 ? null : pingBody(tables, entry.check.uuid, record.n) };
}
