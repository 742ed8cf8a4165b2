// The audit log on disk (DATA_DIR/audit, an LMDB env of its own): each project's recorded changes under
// [projectId, seq], seq one counter for the whole log, so a project's events are one key range in the
// order they were recorded; pruned by age and count as new ones come.
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

/** How long and how many events a project keeps: the older go as new ones come. */
export type AuditLimits = { readonly maxAgeMs: Millis; readonly maxEvents: number };

/** One page of a project's events, newest first, and the cursor of the next (older) page or null. */
export type AuditPage = { readonly events: readonly (StoredAuditEvent & { readonly seq: number })[]; readonly next: number | null };

export class AuditLog {
  readonly #env: RootDatabase<unknown, Key>;
  readonly #events: Table;
  readonly #meta: Table;
  readonly #limits: AuditLimits;
  #seq: number;
  /** Each project's event count, learned on its first append (a range count), then kept. */
  readonly #counts = new Map<string, number>();
  #lastAppend: Promise<unknown> = Promise.resolve();

  private constructor(env: RootDatabase<unknown, Key>, limits: AuditLimits) {
    this.#env = env;
    this.#events = env.openDB<unknown, Key>("events", {}) as Table;
    this.#meta = env.openDB<unknown, Key>("meta", {}) as Table;
    this.#limits = limits;
    const seq = this.#meta.get("seq");
    this.#seq = typeof seq === "number" ? seq : 0;
  }

  /** Opens (creating when missing) the audit log of `dataDir`. */
  static open(dataDir: string, limits: AuditLimits): AuditLog {
    const dir = join(dataDir, AUDIT_DIR);
    makeDir(dir);
    return new AuditLog(open<unknown, Key>(dir, { maxDbs: 2 }), limits);
  }

  /** Stores one event of a project and prunes what is past the limits; resolves once durable. */
  append(projectId: string, event: StoredAuditEvent): Promise<void> {
    // one append at a time: each reads the count and the oldest events its own write then prunes
    const run = this.#lastAppend.then(() => this.#appendNow(projectId, event));
    this.#lastAppend = run.catch(() => undefined);
    return run;
  }

  async #appendNow(projectId: string, event: StoredAuditEvent): Promise<void> {
    const seq = this.#seq + 1;
    // lmdb marks the options object of a count as counting only: each read gets its own range
    let count = (this.#counts.get(projectId) ?? this.#events.getKeysCount(under(projectId))) + 1;
    const oldestKeptAt = event.at - this.#limits.maxAgeMs;
    const pruned: Key[] = [];
    for (const { key, value } of this.#events.getRange(under(projectId))) {
      if (count <= this.#limits.maxEvents && (value as StoredAuditEvent).at >= oldestKeptAt) break;
      pruned.push(key);
      count--;
    }
    await this.#env.transaction(() => {
      void this.#events.put([projectId, seq], event);
      void this.#meta.put("seq", seq);
      for (const key of pruned) void this.#events.remove(key);
    });
    await this.#env.flushed; // a commit resolves before its sync (lmdb's overlapping sync): durable only now
    this.#seq = seq;
    this.#counts.set(projectId, count);
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
