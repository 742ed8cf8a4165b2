// Checks that depend on other checks (CONTRACT "Alerting, second part", depends_on): the rules a list of
// dependencies must pass (checks of the same project, no cycle), and the shard's reverse index, in which
// a check's flip finds the checks it holds or releases. A shard owns whole projects, so every dependency
// of its checks is its own.
import type { Check } from "./model.ts";

/** No uuids: what a check without dependencies or dependents has (one shared empty list). */
const NONE: readonly string[] = Object.freeze([]);

/**
 * Returns why `dependsOn` can't be the dependencies of check `uuid` (null: a check being created) of
 * project `projectId`, or null when it can: each must be another check of the project, and none may
 * depend on the check, directly or through others.
 */
export function dependencyProblem(opts: {
  readonly uuid: string | null;
  readonly projectId: string;
  readonly dependsOn: readonly string[];
  readonly checkOf: (uuid: string) => Check | undefined;
}): string | null {
  const { uuid, projectId, dependsOn, checkOf } = opts;
  for (const dependency of dependsOn) {
    if (dependency === uuid) return "names the check itself";
    if (checkOf(dependency)?.projectId !== projectId) return `names ${dependency}, which is not a check of this project`;
  }
  // the walk: does any dependency lead back to the check? (one being created, uuid null, is in no list)
  const seen = new Set<string>();
  const waiting = [...dependsOn];
  for (let next = waiting.pop(); next !== undefined; next = waiting.pop()) {
    if (next === uuid) return "would make a cycle";
    if (seen.has(next)) continue;
    seen.add(next);
    waiting.push(...(checkOf(next)?.dependsOn ?? NONE));
  }
  return null;
}

/** Returns the first of the check's dependencies that is down (`checkOf` reads the shard's checks), or null when none is. */
export function downDependencyOf(check: Check, checkOf: (uuid: string) => Check | undefined): string | null {
  for (const dependency of check.dependsOn ?? NONE) if (checkOf(dependency)?.status === "down") return dependency;
  return null;
}

/** The reverse index of depends_on: for each check, the checks that depend on it. */
export class Dependents {
  readonly #of = new Map<string, Set<string>>();

  /** Records that check `uuid` now depends on `after` instead of `before`. */
  replace(uuid: string, before: readonly string[] | undefined, after: readonly string[] | undefined): void {
    for (const dependency of before ?? NONE) {
      const set = this.#of.get(dependency);
      set?.delete(uuid);
      if (set?.size === 0) this.#of.delete(dependency);
    }
    for (const dependency of after ?? NONE) {
      let set = this.#of.get(dependency);
      if (set === undefined) this.#of.set(dependency, (set = new Set()));
      set.add(uuid);
    }
  }

  /** Returns the uuids of the checks that depend on check `uuid`, sorted. */
  of(uuid: string): readonly string[] {
    const set = this.#of.get(uuid);
    return set === undefined ? NONE : [...set].sort(); // most checks have no dependents: nothing made per flip
  }
}
