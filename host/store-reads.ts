// The reads a single node's shard host answers from its store (a cluster partition's host reads its history
// instead): a check's ping log page and ping bodies, its flips and sent notifications, the outbox's figures.
import type { OutboxEntry, SentNotice } from "../engine/changes.ts";
import { hasGivenUp } from "../engine/changes.ts";
import { pingDurations } from "../engine/durations.ts";
import type { Flip } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, ok } from "../engine/outcome.ts";
import type { Shard } from "../engine/shard.ts";
import type { Store } from "../persistence/store.ts";
import type { CheckRef, FlipQuery } from "./pool-api.ts";
import { checkByRef, pingKept, pingsListed } from "./shard-reads.ts";
import type { PingPage } from "./shard-requests.ts";

/** A check's newest pings as a list shows them, with each one's run duration. */
export function pingPage(shard: Shard, store: Store, projectId: string, uuid: string, pingLogLimit: number): Outcome<PingPage> {
  const found = shard.getCheck(projectId, uuid);
  if (!found.ok) return found;
  const pings = store.pingPage(uuid, pingsListed(pingLogLimit));
  return ok({ check: found.value, pings, durationsMs: pingDurations(pings) });
}

/** The body of a check's ping `n`: not_found when the ping left the log or had none. */
export function pingBody(
  shard: Shard,
  store: Store,
  projectId: string,
  uuid: string,
  n: number,
  pingLogLimit: number,
): Outcome<Uint8Array> {
  const found = shard.getCheck(projectId, uuid);
  if (!found.ok) return found;
  if (!pingKept(found.value, n, pingLogLimit)) return fail({ code: "not_found", what: "ping" });
  const body = store.pingBody(uuid, n);
  return body && body.length > 0 ? ok(body) : fail({ code: "not_found", what: "ping body" });
}

/** The notifications sent for a check. */
export function sentNotices(shard: Shard, store: Store, projectId: string, uuid: string): Outcome<SentNotice[]> {
  const found = checkByRef(shard, projectId, { uuid });
  return found.ok ? ok(store.sentNotices(uuid)) : found;
}

/** A check's flips, as the query asks. */
export function flipsOf(shard: Shard, store: Store, projectId: string, ref: CheckRef, query: FlipQuery): Outcome<Flip[]> {
  const found = checkByRef(shard, projectId, ref);
  if (!found.ok) return found;
  return ok(store.flips(found.value.uuid, query));
}

/** How many of this shard's notifications (`owns`) wait in the outbox, and how many were given up. */
export function outboxFigures(store: Store, owns: (entry: OutboxEntry) => boolean): { outboxPending: number; outboxGivenUp: number } {
  let outboxPending = 0,
    outboxGivenUp = 0;
  for (const entry of store.outboxAll()) {
    if (!owns(entry)) continue;
    if (hasGivenUp(entry)) outboxGivenUp++;
    else outboxPending++;
  }
  return { outboxPending, outboxGivenUp };
}
