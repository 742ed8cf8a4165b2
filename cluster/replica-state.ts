// A partition replica's standing as its writer, as a pure transition over (standing, event), the way
// leases.ts decides leases: no clock, no I/O, plain data in and out (test/cluster/replica-state.test.ts).

/** idle: never taken over, or a takeover under way; owner: writes; deposed: another node writes; stale: stopped after a failure, rebuilt by the next takeover. */
export type ReplicaState = "idle" | "owner" | "deposed" | "stale";

/**
 * Where a replica stands: its state; its generation, raised by every takeover (a batch appended in an
 * earlier generation is never applied: the takeover replays it); and whether it was given up since the
 * takeover under way began (that takeover must not make it the owner).
 */
export type Standing = { readonly state: ReplicaState; readonly generation: number; readonly abandoned: boolean };

export const FIRST_STANDING: Standing = { state: "idle", generation: 0, abandoned: false };

export type ReplicaEvent =
  /** A takeover begins: not writing until it has replayed, and a new generation. */
  | { readonly kind: "takeoverStarted" }
  /** The takeover's replay is done: the replica writes, unless it was given up meanwhile. */
  | { readonly kind: "replayed" }
  /** The partition was lost (abandon()). */
  | { readonly kind: "abandoned" }
  /** An append of `generation` failed: refused on the fence (another node writes) or anything else (part of it may be stored). */
  | { readonly kind: "appendFailed"; readonly generation: number; readonly fenced: boolean }
  /** A record's effects, or a takeover's catch-up, could not be stored. */
  | { readonly kind: "storeFailed" }
  /** The flush itself failed (an apply threw: a bug). */
  | { readonly kind: "flushFailed" };

export function nextStanding(standing: Standing, event: ReplicaEvent): Standing {
  switch (event.kind) {
    case "takeoverStarted":
      return { state: "idle", generation: standing.generation + 1, abandoned: false };
    case "replayed":
      return standing.abandoned ? standing : { ...standing, state: "owner" };
    case "abandoned":
      return { ...standing, state: "deposed", abandoned: true };
    case "appendFailed":
      // an append of an earlier generation was replayed by the takeover since: its failure changes nothing
      return event.generation === standing.generation ? { ...standing, state: event.fenced ? "deposed" : "stale" } : standing;
    case "storeFailed":
      return standing.state === "owner" ? { ...standing, state: "stale" } : standing;
    case "flushFailed":
      return { ...standing, state: "stale" };
  }
}

/** Whether a batch whose append was sent in `generation` may be applied now: no takeover began since. */
export function sameGeneration(standing: Standing, generation: number): boolean {
  return standing.generation === generation;
}
