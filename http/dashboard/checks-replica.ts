// The dashboard's copies of the projects' checks it shows: a refresh asks the owning shard only for the
// checks changed since the version of its copy (Pool.checksSince), instead of copying every check of the
// project across threads again. A 1,000-check project with a few checks pinged since the last refresh
// then crosses threads as those few checks.
import type { Check } from "../../engine/model.ts";
import type { ChecksSince } from "../../host/pool-api.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";

/** Projects whose checks are kept at once (the most recently shown). */
const MAX_PROJECTS = 32;

type Copy = { readonly version: string; readonly checks: ReadonlyMap<string, Check> };

export class ChecksReplica {
  readonly #copies = new BoundedMap<string, Copy>(MAX_PROJECTS); // in order of use, oldest first

  /**
   * Returns the project's checks and their version: the kept copy brought up to date with what `since`
   * answers for the copy's version (the whole list when it holds none).
   */
  async current(projectId: string, since: (version: string | null) => Promise<ChecksSince>): Promise<{ version: string; checks: Check[] }> {
    const held = this.#copies.get(projectId);
    const answer = await since(held?.version ?? null);
    // another refresh may have brought the copy further meanwhile: keep the newer one
    const kept = this.#copies.get(projectId);
    let copy: Copy;
    if (answer.whole) {
      copy = { version: answer.version, checks: new Map(answer.checks.map((c) => [c.uuid, c])) };
    } else if (kept !== undefined && kept === held) {
      const checks = new Map(held.checks);
      for (const check of answer.checks) checks.set(check.uuid, check);
      for (const uuid of answer.removed) checks.delete(uuid);
      copy = { version: answer.version, checks };
    } else {
      // the copy this answer was asked against was replaced meanwhile: ask again against the new one
      return this.current(projectId, since);
    }
    this.#copies.set(projectId, copy);
    return { version: copy.version, checks: [...copy.checks.values()] };
  }
}
