// Refreshes of the same checks table share renders. While a project's checks change between any two
// refreshes (a busy project pinged all the time), every refresh misses the ETag (rows-etag.ts) and would
// render the whole table again: 10 dashboards open on a 1,000-check project cost 10 full renders every
// refresh period. With this cache a refresh gets the table's latest render when that render is younger
// than COALESCE_MS and its client does not hold it already (so at most that much older than a fresh one,
// on a page that refreshes every few seconds); a client that already holds it, or a render gone stale,
// gets a fresh render, so one viewer refreshing alone always sees every change, and 304s stay exact.
import type { Millis } from "../../engine/model.ts";
import { encodeParts } from "./responses.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";

/** How long a render serves other refreshes of the same table. */
export const COALESCE_MS = 1_000;
/** Tables kept at once (a table is a project and a variant: filters, sort, read-only viewer). */
const MAX_TABLES = 32;

/** One render of the rows: the fragment's parts (every row in full), its ETag, and the instant until which time alone changes nothing in it. */
export type RowsRender = { readonly parts: readonly string[]; readonly etag: string; readonly untilAt: Millis };

/** A render as another refresh takes it: its parts encoded. */
export type SharedRender = { readonly parts: readonly Uint8Array[]; readonly etag: string };

/** A kept render; its parts are encoded when a refresh first takes it (most renders are never shared). */
type Kept = RowsRender & { readonly madeAtMs: number; encoded: readonly Uint8Array[] | null };

export class RowsCache {
  readonly #renders = new BoundedMap<string, Kept>(MAX_TABLES); // oldest render first
  readonly #monotonicMs: () => number;

  /** `monotonicMs`: a clock that only moves forward, in real milliseconds (the age of a render is real time). */
  constructor(monotonicMs: () => number) {
    this.#monotonicMs = monotonicMs;
  }

  /**
   * Returns the table's latest render if another refresh can take it: younger than COALESCE_MS, still
   * what time alone would show at `at`, and not the one the client holds (`clientEtag`); else null.
   */
  shared(table: string, at: Millis, clientEtag: string | null): SharedRender | null {
    const render = this.#renders.get(table);
    if (render === undefined) return null;
    if (this.#monotonicMs() - render.madeAtMs >= COALESCE_MS || at >= render.untilAt) return null;
    if (clientEtag !== null && clientEtag.split(",").some((tag) => tag.trim() === render.etag)) return null;
    render.encoded ??= encodeParts(render.parts);
    return { parts: render.encoded, etag: render.etag };
  }

  /** Keeps `render` as the table's latest; forgets renders too old to be shared and the oldest beyond MAX_TABLES. */
  keep(table: string, render: RowsRender): void {
    const now = this.#monotonicMs();
    for (const [key, kept] of this.#renders.entries()) if (now - kept.madeAtMs >= COALESCE_MS) this.#renders.delete(key);
    this.#renders.set(table, { ...render, madeAtMs: now, encoded: null });
  }
}
