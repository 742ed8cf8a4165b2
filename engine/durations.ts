// Run durations shown in the ping log (fact sheet §6, reference prepare_durations).
import type { Millis, PingRecord } from "./model.ts";
import { LIMITS } from "./model.ts";

/**
 * Returns each ping's run duration in ms (null = none), aligned with the newest-first input: a success
 * or fail is paired with the latest earlier start of the same rid (null pairs with null) when no
 * completion of that rid lies between and the gap is under 72 h. Only pings inside the page are used.
 */
export function pingDurations(pingsNewestFirst: readonly PingRecord[]): (Millis | null)[] {
  const durations: (Millis | null)[] = pingsNewestFirst.map(() => null);
  const openStartAt = new Map<string | null, Millis>(); // rid → latest unpaired start, walking oldest first
  for (let i = pingsNewestFirst.length - 1; i >= 0; i--) {
    const ping = pingsNewestFirst[i];
    if (ping.kind === "start") {
      openStartAt.set(ping.rid, ping.at);
    } else if (ping.kind === "success" || ping.kind === "fail") {
      const startAt = openStartAt.get(ping.rid);
      if (startAt === undefined) continue;
      openStartAt.delete(ping.rid); // each start pairs with at most one completion, even one too late to show
      if (ping.at - startAt < LIMITS.maxRunDurationMs) durations[i] = ping.at - startAt;
    } // log and ign are transparent
  }
  return durations;
}
