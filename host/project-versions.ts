// Each project's version: a counter the shard host moves on every change to any of the project's checks
// (pings, edits, flips, pauses, creations, deletions), so that a reader can learn that nothing it showed
// changed without listing the checks again (the dashboard's auto-refresh answers 304 on it).
import { randomUUID } from "node:crypto";
import type { Changes } from "../engine/changes.ts";

export class ProjectVersions {
  // A fresh epoch per host and per rebuild of its shard: a version seen before a restart, or before the
  // shard was rebuilt from the store, never matches one after it.
  #epoch = randomUUID().slice(0, 8);
  readonly #counts = new Map<string, number>();

  /** Moves the version of every project whose checks `changes` touch. */
  note(changes: Changes): void {
    let last = ""; // a batch of pings usually touches one project many times in a row
    for (const check of changes.checks) {
      if (check.projectId === last) continue;
      last = check.projectId;
      this.#bump(last);
    }
    for (const { projectId } of changes.deletedChecks) this.#bump(projectId);
  }

  /** Returns the project's current version (opaque; equal only while nothing of its checks changed). */
  versionOf(projectId: string): string {
    return `${this.#epoch}.${this.#counts.get(projectId) ?? 0}`;
  }

  /** Starts a new epoch: every version changes (the shard's state was replaced). */
  reset(): void {
    this.#epoch = randomUUID().slice(0, 8);
    this.#counts.clear();
  }

  #bump(projectId: string): void {
    this.#counts.set(projectId, (this.#counts.get(projectId) ?? 0) + 1);
  }
}
