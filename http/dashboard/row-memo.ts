// Each table's rows from its last render, by check: a render reuses a row whose inputs are unchanged
// instead of building its markup again. On a 1,000-check project where a few checks changed since the last
// refresh, the refresh renders those few rows; the rest is a lookup. A row's inputs are its check record
// and a key of what else it shows (pages.ts: status word, link, relative time). Check records are never
// changed in place (every change makes a new record), so the same record means the same fields, and a
// reused row is byte for byte a fresh one.
import type { Html } from "./html.ts";

/** Rows kept over all tables (about 0.4 kB each): the oldest tables go first beyond it. */
const MAX_ROWS = 50_000;

type Row = { readonly record: object; readonly key: string; readonly html: Html };

/** One render's view of a table's memo: rows of the last render to reuse, rows of this one to keep. */
export type RowMemoRender = {
  /** Returns the row of check `id` from the last render if it had the same `record` and `key`, else `render()`'s. */
  row(id: string, record: object, key: string, render: () => Html): Html;
  /** Keeps this render's rows as the table's (rows not rendered this time are forgotten). */
  done(): void;
};

export class RowMemo {
  readonly #tables = new Map<string, Map<string, Row>>();
  #rows = 0;

  /** Starts a render of `table` (a project and a variant of its rows). */
  render(table: string): RowMemoRender {
    const last = this.#tables.get(table);
    const next = new Map<string, Row>();
    return {
      row: (id, record, key, render) => {
        const kept = last?.get(id);
        const row = kept !== undefined && kept.record === record && kept.key === key ? kept : { record, key, html: render() };
        next.set(id, row);
        return row.html;
      },
      done: () => this.#keep(table, next),
    };
  }

  #keep(table: string, rows: Map<string, Row>): void {
    const last = this.#tables.get(table);
    if (last !== undefined) this.#rows -= last.size;
    this.#tables.delete(table); // re-inserted last: the map's order is the tables' age
    this.#tables.set(table, rows);
    this.#rows += rows.size;
    for (const [oldest, kept] of this.#tables) {
      if (this.#rows <= MAX_ROWS || oldest === table) break;
      this.#tables.delete(oldest);
      this.#rows -= kept.size;
    }
  }
}
