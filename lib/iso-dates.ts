// Instants as the reference writes them in API JSON and messages (Python isoformat with "+00:00").

type Millis = number; // milliseconds since the epoch, as everywhere in hcd
const SECOND = 1000;

/** Returns `at` as ISO 8601 to the second with "+00:00" (microseconds dropped, reference isostring); null stays null. */
export function isoSeconds(at: Millis): string;
export function isoSeconds(at: Millis | null): string | null;
export function isoSeconds(at: Millis | null): string | null {
  if (at === null) return null;
  return new Date(Math.floor(at / SECOND) * SECOND).toISOString().slice(0, 19) + "+00:00";
}

/** Returns `at` as ISO 8601 with microseconds when the fraction is non-zero, and "+00:00" (ping dates). */
export function isoMicros(at: Millis): string {
  at = Math.floor(at);
  const ms = ((at % SECOND) + SECOND) % SECOND;
  const base = new Date(at - ms).toISOString().slice(0, 19);
  return ms === 0 ? `${base}+00:00` : `${base}.${String(ms).padStart(3, "0")}000+00:00`;
}
