// The row memo (http/dashboard/row-memo.ts): a row is built again only when its record or its key changed;
// rows not in the last render of their table are forgotten; tables do not share rows.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Html } from "../../http/dashboard/html.ts";
import { raw } from "../../http/dashboard/html.ts";
import { RowMemo } from "../../http/dashboard/row-memo.ts";

const RECORD = {}; // one check record, unchanged

/** Renders `rows` (id → key, each with RECORD unless given) into `table`; returns the ids whose row was built this time. */
function renderAll(memo: RowMemo, table: string, rows: Record<string, string>, records: Record<string, object> = {}): string[] {
  const built: string[] = [];
  const render = memo.render(table, { render: "etag", client: null });
  for (const [id, key] of Object.entries(rows))
    render.row(id, records[id] ?? RECORD, key, () => {
      built.push(id);
      return raw(`<tr>${id} ${key}</tr>`);
    });
  render.done();
  return built;
}

test("only rows whose key changed are built again; a reused row is the one built before", () => {
  const memo = new RowMemo();
  assert.equal(renderAll(memo, "t", { a: "1", b: "1", c: "1" }), ["a", "b", "c"]);
  assert.equal(renderAll(memo, "t", { a: "1", b: "2", c: "1" }), ["b"]);
  assert.equal(renderAll(memo, "t", { a: "1", b: "2", c: "1" }, { c: { changed: true } }), ["c"], "a new record of the same check");
  const render = memo.render("t", { render: "etag", client: null });
  assert.is(render.row("a", RECORD, "1", () => raw("<tr>never</tr>")).html.text, "<tr>a 1</tr>");
  assert.is(render.row("b", RECORD, "2", () => raw("<tr>never</tr>")).html.text, "<tr>b 2</tr>");
});

test("a row left out of a render is forgotten; another table has rows of its own", () => {
  const memo = new RowMemo();
  renderAll(memo, "t", { a: "1", b: "1" });
  assert.equal(renderAll(memo, "t", { a: "1" }), []);
  assert.equal(renderAll(memo, "t", { a: "1", b: "1" }), ["b"], "b was not in the last render");
  assert.equal(renderAll(memo, "other", { a: "1" }), ["a"]);
});

/** Renders `rows` (id → key) into `table` in parts of `size` rows; returns each part's text. */
function renderParts(memo: RowMemo, table: string, rows: Record<string, string>, size: number): string[] {
  const render = memo.render(table, { render: "etag", client: null });
  const parts: string[] = [];
  let part: Html[] = [];
  for (const [id, key] of Object.entries(rows)) {
    part.push(render.row(id, RECORD, key, () => raw(`<tr>${id} ${key}</tr>`)).html);
    if (part.length === size) {
      parts.push(render.part(part));
      part = [];
    }
  }
  if (part.length > 0) parts.push(render.part(part));
  render.done();
  return parts;
}

test("a part shows its rows as they are now: a changed row, a row gone, a row moved", () => {
  const memo = new RowMemo();
  assert.equal(renderParts(memo, "t", { a: "1", b: "1", c: "1" }, 2), ["<tr>a 1</tr><tr>b 1</tr>", "<tr>c 1</tr>"]);
  assert.equal(renderParts(memo, "t", { a: "1", b: "1", c: "1" }, 2), ["<tr>a 1</tr><tr>b 1</tr>", "<tr>c 1</tr>"]);
  assert.equal(renderParts(memo, "t", { a: "1", b: "2", c: "1" }, 2), ["<tr>a 1</tr><tr>b 2</tr>", "<tr>c 1</tr>"]);
  assert.equal(renderParts(memo, "t", { a: "1", c: "1" }, 2), ["<tr>a 1</tr><tr>c 1</tr>"]);
  assert.equal(renderParts(memo, "t", { c: "1", a: "1" }, 2), ["<tr>c 1</tr><tr>a 1</tr>"]);
  assert.equal(renderParts(memo, "t", { c: "1", a: "1", d: "1" }, 2), ["<tr>c 1</tr><tr>a 1</tr>", "<tr>d 1</tr>"]);
  assert.equal(renderParts(memo, "t", { c: "1" }, 2), ["<tr>c 1</tr>"]);
});

test("a client holds the last render when it sends that render's ETag; a reused row says so", () => {
  const memo = new RowMemo();
  const first = memo.render("t", { render: "E1", client: null });
  assert.is(first.clientHolds, false, "nothing rendered before");
  assert.is(first.row("a", RECORD, "1", () => raw("<tr>a</tr>")).reused, false);
  first.done();
  const holds = (client: string | null) => memo.render("t", { render: "E2", client }).clientHolds;
  assert.is(holds("E1"), true);
  assert.is(holds('W/"x", E1'), true, "one of several tags");
  assert.is(holds("E0"), false, "an older render");
  assert.is(holds(null), false);
  assert.is(memo.render("other", { render: "E2", client: "E1" }).clientHolds, false, "another table's render");
  const second = memo.render("t", { render: "E2", client: "E1" });
  assert.is(second.row("a", RECORD, "1", () => raw("<tr>never</tr>")).reused, true);
  assert.is(second.row("b", RECORD, "1", () => raw("<tr>b</tr>")).reused, false);
  second.done();
  assert.is(memo.render("t", { render: "E3", client: "E1" }).clientHolds, false, "E2 is the last render now");
});

test.run();
