// Each table's rows from its last render, by check: a render reuses a row whose inputs are unchanged
// instead of building its markup again. On a 1,000-check project where a few checks changed since the last
// refresh, the refresh renders those few rows; the rest is a lookup. A row's inputs are its check record
// and a key of what else it shows (pages.ts: status word, link, relative time). Check records are never
// changed in place (every change makes a new record), so the same record means the same fields, and a
// reused row is byte for byte a fresh one. The rows go out in parts (pages.ts): a part whose rows are the
// same rows (reused: the same objects) as the same part of the last render is that render's joined part.
// A table remembers its last render's ETag: a client that sends it holds exactly those rows, so the rows
// reused from it need not be sent to that client again (pages.ts sends a placeholder for each).
import type { Html } from "./html.ts";

/** Rows kept over all tables (about 0.4 kB each): the oldest tables go first beyond it. */
const MAX_ROWS = 50_000;

type Row = { readonly record: object; readonly key: string; readonly html: Html };
type Part = { readonly rows: readonly Html[]; readonly text: string };
type Table = { readonly rows: Map<string, Row>; readonly parts: Part[]; readonly etag: string };

/** One render's view of a table's memo: rows of the last render to reuse, rows of this one to keep. */
export type RowMemoRender = {
  /** Whether the client holds the last render (it sent that render's ETag): then a reused row is one it shows already. */
  readonly clientHolds: boolean;
  /** Returns the row of check `id` from the last render if it had the same `record` and `key` (reused), else `render()`'s. */
  row(id: string, record: object, key: string, render: () => Html): { readonly html: Html; readonly reused: boolean };
  /** Returns the next part of the table, `rows` joined: the last render's same part when its rows were the same rows (reused ones). */
  part(rows: readonly Html[]): string;
  /** Keeps this render's rows as the table's (rows not rendered this time are forgotten). */
  done(): void;
};

export class RowMemo {
  readonly #tables = new Map<string, Table>();
  #rows = 0;

  /**
   * Starts a render of `table` (a project and a variant of its rows) whose ETag is `etags.render`, for a
   * client that sent `etags.client` (If-None-Match, or null).
   */
  render(table: string, etags: { readonly render: string; readonly client: string | null }): RowMemoRender {
    const last = this.#tables.get(table);
    const next: Table = { rows: new Map(), parts: [], etag: etags.render };
    const client = etags.client;
    return {
      clientHolds: last !== undefined && client !== null && client.split(",").some((tag) => tag.trim() === last.etag),
      row: (id, record, key, render) => {
        const kept = last?.rows.get(id);
        const reused = kept !== undefined && kept.record === record && kept.key === key;
        const row = reused ? kept : { record, key, html: render() };
        next.rows.set(id, row);
        return { html: row.html, reused };
      },
      part: (rows) => {
        const kept = last?.parts[next.parts.length];
        const part = kept !== undefined && sameRows(kept.rows, rows) ? kept : { rows, text: joinRows(rows) };
        next.parts.push(part);
        return part.text;
      },
      done: () => this.#keep(table, next),
    };
  }

  #keep(name: string, table: Table): void {
    const last = this.#tables.get(name);
    if (last !== undefined) this.#rows -= last.rows.size;
    this.#tables.delete(name); // re-inserted last: the map's order is the tables' age
    this.#tables.set(name, table);
    this.#rows += table.rows.size;
    for (const [oldest, kept] of this.#tables) {
      if (this.#rows <= MAX_ROWS || oldest === name) break;
      this.#tables.delete(oldest);
      this.#rows -= kept.rows.size;
    }
  }
}

/** Whether two lists hold the same row objects in the same order (a reused row is the same object). */
function sameRows(a: readonly Html[], b: readonly Html[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The rows' markup, one after another. */
export function joinRows(rows: readonly Html[]): string {
  let text = "";
  for (const row of rows) text += row.text;
  return text;
}
