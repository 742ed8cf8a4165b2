// The checks table's auto-refresh answers 304 Not Modified when nothing it would show changed: its ETag
// names the project's version (host/project-versions.ts: moved by every ping, edit, flip, pause of any of
// its checks), the request's variant (filters, sort, read-only viewer), and the instant until which time
// alone changes nothing shown.
//
// Why an instant rather than a time bucket: the rows show words that change with time alone, without a
// change to any check: "last ping 12 seconds ago" and the status words "grace" (computed from the clock,
// never a flip) and "down" (shown from the deadline on, a moment before the shard's timer records the
// flip). The full render knows each check's next such instant (pages.ts statusWordUntil, rowTextUntil);
// the earliest one goes into the ETag, and a conditional request after it gets the table again. So a 304
// is exact: the rows it keeps are byte for byte what a render at that moment would give, never stale by
// even one refresh period. The version and the instant are the server's own; the client just echoes the
// ETag in If-None-Match.
import { createHash } from "node:crypto";
import type { Millis } from "../../engine/model.ts";

/** What the ETag of one rendering of the rows stands for. */
export type RowsTag = { readonly version: string; readonly variant: string; readonly untilAt: Millis };

/** Returns the variant of a rows request: everything besides the checks and the clock that shapes the rows. */
export function rowsVariant(search: string, readonly: boolean): string {
  const query = new URLSearchParams(search);
  query.sort();
  return createHash("sha1")
    .update(`${readonly ? "ro" : "rw"}?${query.toString()}`)
    .digest("hex")
    .slice(0, 16);
}

/** Returns the ETag header value of a rendering. */
export function rowsEtag(tag: RowsTag): string {
  const until = Number.isFinite(tag.untilAt) ? String(tag.untilAt) : "never";
  return `W/"${tag.version}-${tag.variant}-${until}"`;
}

/** Returns the ETag in If-None-Match whose rows are still what a render at `at` would give, or null. */
export function freshEtag(ifNoneMatch: string | null, current: { version: string; variant: string; at: Millis }): string | null {
  if (ifNoneMatch === null) return null;
  for (const candidate of ifNoneMatch.split(",")) {
    const match = /^\s*(?:W\/)?"([^"-]+)-([^"-]+)-([0-9]+|never)"\s*$/.exec(candidate);
    if (match === null) continue;
    const [, version, variant, until] = match;
    const untilAt = until === "never" ? Infinity : Number(until);
    if (version === current.version && variant === current.variant && current.at < untilAt) return candidate.trim();
  }
  return null;
}
