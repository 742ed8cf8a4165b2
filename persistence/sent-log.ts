// Each check's delivered notifications: [checkUuid, sentAt, id] → SentNotice, the newest KEPT_PER_CHECK of
// each check kept. Written as a delivery leaves the outbox (in the same transaction), read by the check's
// page. A store written before this table gets it at its next writable open; a read-only open of such a
// store has none (null): no notices.
import type { SentNotice } from "../engine/changes.ts";
import { removeRange, under, valuesIn } from "./tables.ts";
import type { Tables } from "./tables.ts";

/** How many delivered notifications of one check are kept (older ones go as newer ones come). */
export const KEPT_PER_CHECK = 100;

/** Removes a delivered entry from the outbox and records it among its check's sent notices; call inside a write transaction. */
export function recordDelivered(tables: Tables, notice: SentNotice): void {
  tables.outbox.removeSync([notice.id]);
  const sent = tables.sent;
  if (sent === null) return;
  sent.putSync([notice.checkUuid, notice.sentAt, notice.id], notice);
  const keys = Array.from(sent.getKeys(under(notice.checkUuid))); // oldest first
  for (const key of keys.slice(0, Math.max(0, keys.length - KEPT_PER_CHECK))) sent.removeSync(key);
}

/** Returns a check's delivered notifications, newest first. */
export function sentNotices(tables: Tables, checkUuid: string): SentNotice[] {
  if (tables.sent === null) return [];
  const all = under(checkUuid);
  return valuesIn<SentNotice>(tables.sent, { start: all.end, end: all.start, reverse: true });
}

/** Removes a check's delivered notifications (the check was deleted); call inside a write transaction. */
export function removeSent(tables: Tables, checkUuid: string): void {
  if (tables.sent !== null) removeRange(tables.sent, under(checkUuid));
}
