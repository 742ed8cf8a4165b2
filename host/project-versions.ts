// Each project's version: a counter the shard host moves on every change to any of the project's checks
// (pings, edits, flips, pauses, creations, deletions), so that a reader can learn that nothing it showed
// changed without listing the checks again (the dashboard's auto-refresh answers 304 on it).
//
// For a project that a reader keeps a copy of (a dashboard's checks table), the versions also say which
// checks changed since a version the reader holds, so that it asks for those checks only. Which checks
// changed is kept for the MAX_WATCHED projects asked about most recently, from the first question on: a
// project nobody watches costs nothing more than its counter.
import { randomUUID } from "node:crypto";
import type { Changes } from "../engine/changes.ts";
import { BoundedMap } from "../lib/bounded-map.ts";

/** Projects whose changed checks are tracked at once, per shard. */
const MAX_WATCHED = 64;

/** A watched project: from which count on its changes are known, and each changed check's count at its last change. */
type Watch = { readonly fromCount: number; readonly changedAt: Map<string, number> };

/** What changed in a project since a version: every check id (null: unknown, read them all). */
export type ChangedSince = { readonly version: string; readonly uuids: readonly string[] | null };

export class ProjectVersions {
  // A fresh epoch per host and per rebuild of its shard: a version seen before a restart, or before the
  // shard was rebuilt from the store, never matches one after it.
  #epoch = randomUUID().slice(0, 8);
  readonly #counts = new Map<string, number>();
  readonly #watched = new BoundedMap<string, Watch>(MAX_WATCHED); // in order of the last question, oldest first

  /** Moves the version of every project whose checks `changes` touch. */
  note(changes: Changes): void {
    let last = ""; // a batch of pings usually touches one project many times in a row
    let watch: Watch | undefined;
    for (const check of changes.checks) {
      if (check.projectId !== last) {
        last = check.projectId;
        this.#bump(last);
        watch = this.#watched.get(last);
      }
      watch?.changedAt.set(check.uuid, this.#countOf(last));
    }
    for (const { projectId, uuid } of changes.deletedChecks) {
      this.#bump(projectId);
      this.#watched.get(projectId)?.changedAt.set(uuid, this.#countOf(projectId));
    }
  }

  /** Moves the version of a project one of whose checks changed (a ping applied before its commit). */
  noteCheck(projectId: string, uuid: string): void {
    this.#bump(projectId);
    this.#watched.get(projectId)?.changedAt.set(uuid, this.#countOf(projectId));
  }

  /** Returns the project's current version (opaque; equal only while nothing of its checks changed). */
  versionOf(projectId: string): string {
    return `${this.#epoch}.${this.#countOf(projectId)}`;
  }

  /**
   * Returns the project's version and the checks changed (or deleted) after version `since`; uuids null
   * when they are not known (no version, one of another epoch, or from before the project was watched).
   * Watches the project from now on.
   */
  changedSince(projectId: string, since: string | null): ChangedSince {
    const version = this.versionOf(projectId);
    const count = this.#countOf(projectId);
    let watch = this.#watched.get(projectId);
    watch ??= { fromCount: count, changedAt: new Map() };
    this.#watched.set(projectId, watch); // the newest question: the oldest watch beyond MAX_WATCHED goes
    const sinceCount = this.#countIn(since);
    if (sinceCount === null || sinceCount < watch.fromCount || sinceCount > count) return { version, uuids: null };
    const uuids: string[] = [];
    for (const [uuid, changedAt] of watch.changedAt) if (changedAt > sinceCount) uuids.push(uuid);
    return { version, uuids };
  }

  /** Starts a new epoch: every version changes (the shard's state was replaced). */
  reset(): void {
    this.#epoch = randomUUID().slice(0, 8);
    this.#counts.clear();
    this.#watched.clear();
  }

  /** The count of a version of this epoch, or null. */
  #countIn(version: string | null): number | null {
    if (version === null) return null;
    const dot = version.indexOf(".");
    if (dot < 0 || version.slice(0, dot) !== this.#epoch) return null;
    const count = Number(version.slice(dot + 1));
    return Number.isSafeInteger(count) && count >= 0 ? count : null;
  }

  #countOf(projectId: string): number {
    return this.#counts.get(projectId) ?? 0;
  }

  #bump(projectId: string): void {
    this.#counts.set(projectId, this.#countOf(projectId) + 1);
  }
}
