// The next occurrences of a schedule as ISO strings: the form the schedule tests state their expectations in.
import { nextAfter } from "../../engine/schedule.ts";

/** Returns an instant as an ISO string without milliseconds (null stays null). */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace(".000Z", "Z"));

/** Returns the next `n` occurrences after `fromIso`, as ISO strings (null once there are none). */
export function series(expr: string, tz: string, fromIso: string, n: number): (string | null)[] {
  const out: (string | null)[] = [];
  let t: number | null = Date.parse(fromIso);
  while (out.length < n && t !== null) {
    t = nextAfter(expr, tz, t);
    out.push(iso(t));
  }
  return out;
}
