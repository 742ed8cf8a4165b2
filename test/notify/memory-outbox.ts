// An in-memory outbox with the store's three deliverer methods, and an OutboxEntry factory.
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, Check, Flip, PingRecord } from "../../engine/model.ts";
import type { EntryExtras } from "../../notify/render.ts";
import { channel, check, flip } from "../helpers.ts";

/** Returns an outbox entry for a down flip at 0 of a fresh check; override any part. */
export function outboxEntry(parts: {
  check?: Check; flip?: Partial<Flip>; channel?: Channel; lastPing?: PingRecord | null; attempts?: number;
  nextAttemptAt?: number; extras?: EntryExtras;
} = {}): OutboxEntry & EntryExtras {
  const c = parts.check ?? check({ name: "Backup", status: "down" });
  const f = flip({ checkUuid: c.uuid, at: 0, from: "up", to: "down", reason: "timeout", notify: true, ...parts.flip });
  const ch = parts.channel ?? channel();
  return {
    id: `${String(f.at).padStart(15, "0")}:${c.uuid}:${String(f.n).padStart(9, "0")}:${ch.id}`,
    projectId: c.projectId, check: c, flip: f, channel: ch, lastPing: parts.lastPing ?? null,
    lastPingBody: parts.extras?.lastPingBody ?? null, projectName: parts.extras?.projectName ?? "",
    downSinceAt: parts.extras?.downSinceAt ?? null,
    attempts: parts.attempts ?? 0, nextAttemptAt: parts.nextAttemptAt ?? f.at, lastError: null,
  };
}

/** The deliverer's view of the store, kept in a Map; `writes` counts updates and deletes. */
export class MemoryOutbox {
  readonly entries = new Map<string, OutboxEntry>();
  writes = 0;
  constructor(entries: readonly OutboxEntry[] = []) {
    for (const entry of entries) this.entries.set(entry.id, entry);
  }
  outboxDue(at: number, limit: number): OutboxEntry[] {
    return [...this.entries.values()].filter((e) => e.nextAttemptAt <= at)
      .sort((a, b) => (a.id < b.id ? -1 : 1)).slice(0, limit);
  }
  outboxAll(): OutboxEntry[] {
    return [...this.entries.values()];
  }
  async outboxUpdate(entry: OutboxEntry): Promise<void> {
    this.writes++;
    this.entries.set(entry.id, entry);
  }
  async outboxDelete(id: string): Promise<void> {
    this.writes++;
    this.entries.delete(id);
  }
  /** Returns the stored entry with this id, or null once it was delivered. */
  get(id: string): OutboxEntry | null {
    return this.entries.get(id) ?? null;
  }
}
