// When a notification's outage began: an up flip's and a reminder's message says since when the check was
// down, read from the flip before the up (or the reminder's own down flip) in the flip log.
import type { OutboxEntry } from "./changes.ts";
import type { Flip } from "./model.ts";

/** The number of the flip that tells when `entry`'s outage began, or null when it needs none (it knows already, or it is a down). */
export function downSinceFlipNumber(entry: OutboxEntry): number | null {
  if (entry.downSinceAt !== null) return null;
  if (entry.reminder !== undefined) return entry.flip.n;
  return entry.flip.to === "up" ? entry.flip.n - 1 : null;
}

/** `entry` with downSinceAt from `flip` (the one downSinceFlipNumber named) when that flip went down; else `entry` itself. */
export function withDownSince(entry: OutboxEntry, flip: Flip | null | undefined): OutboxEntry {
  return flip?.to === "down" ? { ...entry, downSinceAt: flip.at } : entry;
}
