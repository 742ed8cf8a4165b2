// The audit log on disk (DATA_DIR/audit, an LMDB env of its own): each project's recorded changes under
// [projectId, seq], seq one counter for the whole log, so a project's events are one key range in the
// order they were recorded; pruned as new ones come, by age, and by count within each group of one actor's
// one action (auditGroupOf): an actor's flood pushes out only its own older events of the same action, never
// another actor's nor another action's. An index [projectId, group, seq] finds a group's oldest.
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Key, RootDatabase } from "lmdb";
import { open } from "lmdb";
import type { Millis } from "../engine/model.ts";
import type { Table } from "./tables.ts";
import { under } from "./tables.ts";
import { makeDir } from "./open.ts";

/** The audit env's directory under DATA_DIR (its data.mdb is in every backup). */
export const AUDIT_DIR = "audit";

/** One recorded change as stored: who, what, on which object, when. */
export type StoredAuditEvent = { readonly at: Millis; readonly actor: string; readonly action: string; readonly target: string };

/** How long a project keeps its events, and how many of each actor's each action: the older go as new ones come. */
export type AuditLimits = { readonly maxAgeMs: Millis; readonly maxEvents: number };

/** The group an event is counted in: its actor and its action (a digest, so it can name a key or a subject). */
export function auditGroupOf(event: Pick<StoredAuditEvent, "actor" | "action">): string {
  return createHash("sha256").update(`${event.actor}\0${event.action}`).digest("hex").slice(0, 16);
}

/** One page of a project's events, newest first, and the cursor of the next (older) page or null. */
export type AuditPage = { readonly events: readonly (StoredAuditEvent & { readonly seq: number })[]; readonly next: number | null };

export class AuditLog {
  readonly #env: RootDatabase<unknown, Key>;
  readonly #events: Table;
  readonly #groups: Table;
  readonly #meta: Table;
  readonly #limits: AuditLimits;
  #seq: number;
  /** Each group's event count ("<projectId> <group>"), learned on its first append (a range count), then kept. */
  readonly #counts = new Map<string, number>();
  #lastAppend: Promise<unknown> = Promise.resolve();

  private constructor(env: RootDatabase<unknown, Key>, limits: AuditLimits) {
    this.#env = env;
    this.#events = env.openDB<unknown, Key>("events", {});
    this.#groups = env.openDB<unknown, Key>("groups", {});
    this.#meta = env.openDB<unknown, Key>("meta", {});
    this.#limits = limits;
    const seq = this.#meta.get("seq");
    this.#seq = typeof seq === "number" ? seq : 0;
  }

  /** Opens (creating when missing) the audit log of `dataDir`; a log written before the groups' index gets it now. */
  static open(dataDir: string, limits: AuditLimits): AuditLog {
    const dir = join(dataDir, AUDIT_DIR);
    makeDir(dir);
    const log = new AuditLog(open<unknown, Key>(dir, { maxDbs: 3 }), limits);
    log.#indexGroups();
    return log;
  }

  #indexGroups(): void {
    if (this.#meta.get("grouped") === true) return;
    this.#env.transactionSync(() => {
      for (const { key, value } of this.#events.getRange({})) {
        const [projectId, seq] = key as [string, number];
        void this.#groups.put([projectId, auditGroupOf(value as StoredAuditEvent), seq], 1);
      }
      void this.#meta.put("grouped", true);
    });
  }

  /** Stores one event of a project and prunes what is past the limits; resolves once durable. */
  append(projectId: string, event: StoredAuditEvent): Promise<void> {
    // one append at a time: each reads the counts and the oldest events its own write then prunes
    const run = this.#lastAppend.then(() => this.#appendNow(projectId, event));
    this.#lastAppend = run.catch(() => undefined);
    return run;
  }

  async #appendNow(projectId: string, event: StoredAuditEvent): Promise<void> {
    const seq = this.#seq + 1;
    const group = auditGroupOf(event);
    const counted = `${projectId} ${group}`;
    // lmdb marks the options object of a count as counting only: each read gets its own range
    const groupRange = () => ({ start: [projectId, group], end: [projectId, group + "\u0001"] });
    const counts = new Map<string, number>([[counted, (this.#counts.get(counted) ?? this.#groups.getKeysCount(groupRange())) + 1]]);
    const pruned: [string, string, number][] = []; // [projectId, group, seq]
    const oldestKeptAt = event.at - this.#limits.maxAgeMs;
    for (const { key, value } of this.#events.getRange(under(projectId))) {
      // by age: the project's oldest first
      if ((value as StoredAuditEvent).at >= oldestKeptAt) break;
      const old = auditGroupOf(value as StoredAuditEvent),
        oldKey = `${projectId} ${old}`;
      pruned.push([projectId, old, (key as [string, number])[1]]);
      counts.set(
        oldKey,
        (counts.get(oldKey) ??
          this.#counts.get(oldKey) ??
          this.#groups.getKeysCount({ start: [projectId, old], end: [projectId, old + "\u0001"] })) - 1,
      );
    }
    const gone = new Set(pruned.map(([, , n]) => n));
    for (const { key } of this.#groups.getRange(groupRange())) {
      // by count: this group's oldest first
      if ((counts.get(counted) ?? 0) <= this.#limits.maxEvents) break;
      const n = (key as [string, string, number])[2];
      if (gone.has(n)) continue;
      pruned.push([projectId, group, n]);
      counts.set(counted, (counts.get(counted) ?? 0) - 1);
    }
    await this.#env.transaction(() => {
      void this.#events.put([projectId, seq], event);
      void this.#groups.put([projectId, group, seq], 1);
      void this.#meta.put("seq", seq);
      for (const [p, g, n] of pruned) {
        void this.#events.remove([p, n]);
        void this.#groups.remove([p, g, n]);
      }
    });
    await this.#env.flushed; // a commit resolves before its sync (lmdb's overlapping sync): durable only now
    this.#seq = seq;
    for (const [key, count] of counts) this.#counts.set(key, count);
  }

  /** Returns up to `limit` events of a project recorded before the cursor `before` (null: the newest), newest first. */
  page(projectId: string, opts: { limit: number; before: number | null }): AuditPage {
    const range = under(projectId);
    // a reverse range includes its start key: the newest one below the cursor is seq before - 1
    const end = opts.before === null ? range.end : [projectId, opts.before - 1];
    const events: (StoredAuditEvent & { seq: number })[] = [];
    for (const { key, value } of this.#events.getRange({ start: end, end: range.start, reverse: true, limit: opts.limit + 1 })) {
      events.push({ ...(value as StoredAuditEvent), seq: (key as [string, number])[1] });
    }
    const more = events.length > opts.limit;
    if (more) events.pop();
    return { events, next: more ? events[events.length - 1].seq : null };
  }

  /** Writes a compacted, consistent copy of the log into `dir` (its data.mdb). */
  async copyTo(dir: string): Promise<void> {
    makeDir(dir);
    await this.#env.backup(dir, true);
  }

  async close(): Promise<void> {
    await this.#env.close();
  }
}
