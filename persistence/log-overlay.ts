// What the store's readers see of the commits that are in the command log but not yet in the tables:
// their pings and flips by check (oldest first), and how many notifications they queued. A read of a
// check's ping log or flips merges its lists here with the tables, so it never waits for a checkpoint
// and never scans the pending commits.
import type { Changes, PingWrite } from "../engine/changes.ts";
import type { Flip } from "../engine/model.ts";

/** The pings, flips and outbox count of commits not yet in the tables. */
export class LogOverlay {
  readonly #pings = new Map<string, PingWrite[]>();
  readonly #flips = new Map<string, Flip[]>();
  #outbox = 0;

  /** Adds a commit; a check it deletes loses what the overlay held of it. */
  add(changes: Changes): void {
    for (const { uuid } of changes.deletedChecks) {
      this.#pings.delete(uuid);
      this.#flips.delete(uuid);
    }
    for (const write of changes.pings) push(this.#pings, write.checkUuid, write);
    for (const flip of changes.flips) push(this.#flips, flip.checkUuid, flip);
    this.#outbox += changes.outbox.length;
  }

  /** Removes commits (the tables hold them now, or they failed). */
  remove(commits: readonly Changes[]): void {
    removeAll(
      this.#pings,
      commits.flatMap((c) => c.pings),
      (write) => write.checkUuid,
    );
    removeAll(
      this.#flips,
      commits.flatMap((c) => c.flips),
      (flip) => flip.checkUuid,
    );
    for (const changes of commits) this.#outbox -= changes.outbox.length;
  }

  /** Returns a check's pings in the overlay, oldest first. */
  pings(checkUuid: string): readonly PingWrite[] {
    return this.#pings.get(checkUuid) ?? [];
  }

  /** Returns a check's flips in the overlay, oldest first. */
  flips(checkUuid: string): readonly Flip[] {
    return this.#flips.get(checkUuid) ?? [];
  }

  /** Returns true when the overlay's commits queued notifications. */
  hasOutbox(): boolean {
    return this.#outbox > 0;
  }
}

/** Appends `item` to the list of `key`. */
function push<T>(map: Map<string, T[]>, key: string, item: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [item]);
  else list.push(item);
}

/** Removes `items` from the lists they are in (one pass over each list concerned). */
function removeAll<T>(map: Map<string, T[]>, items: readonly T[], keyOf: (item: T) => string): void {
  if (items.length === 0) return;
  const gone = new Set(items);
  for (const key of new Set(items.map(keyOf))) {
    const list = map.get(key);
    if (list === undefined) continue;
    const kept = list.filter((item) => !gone.has(item));
    if (kept.length === 0) map.delete(key);
    else if (kept.length !== list.length) map.set(key, kept);
  }
}
