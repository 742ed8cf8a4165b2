// The checks list: its page (filters, a page of PAGE_SIZE rows, the pager), the table's rows in parts for
// the auto-refresh (changed rows in full, the others as placeholders), and each row's state over time.
import type { Check, Millis, Project } from "../../engine/model.ts";
import { graceStartAt } from "../../engine/status.ts";
import { durationText, exactText } from "./format.ts";
import type { Html } from "./html.ts";
import { escapeHtml, html, raw } from "./html.ts";
import type { RowMemoRender } from "./row-memo.ts";
import { joinRows } from "./row-memo.ts";
import type { Mark } from "./check-marks.ts";
import { checkMarksOf, marksChangeAt, marksHtml, marksKey, projectMuteLine } from "./check-marks.ts";
import type { StatusWord } from "./pages.ts";
import type { Viewer } from "./page-frame.ts";
import { scheduleText, STATUS_WORDS, statusBadge, statusWordOf, tagsOf } from "./pages.ts";
import { documentOf, projectNav } from "./page-frame.ts";

/**
 * Returns a check's status word at `at` and an instant after `at` before which time alone does not change
 * it (Infinity when it never does): the instants at which statusAt can change without a command, the
 * grace start, its end, and an open run's end, whichever comes first.
 */
function statusWordUntil(check: Check, at: Millis): { word: StatusWord; untilAt: Millis } {
  let untilAt = Infinity;
  const consider = (instant: Millis) => {
    if (instant > at && instant < untilAt) untilAt = instant;
  };
  if (check.lastStartAt !== null) consider(check.lastStartAt + check.graceMs);
  if (check.status === "up") {
    const graceAt = graceStartAt(check, { withStarted: false });
    if (graceAt !== null) {
      consider(graceAt);
      consider(graceAt + check.graceMs);
    }
  }
  return { word: statusWordOf(check, at), untilAt };
}

/**
 * Returns an instant after `at` before which time alone changes nothing the check's row shows (its word,
 * its marks). Its "last ping ... ago" is not among them: the row carries the ping's instant and the page's
 * script words it (dashboard.js), so an open page whose checks do not change is answered 304.
 */
function rowTextUntil(check: Check, at: Millis, statusUntilAt: Millis): Millis {
  return Math.min(statusUntilAt, marksChangeAt(check, at)); // a mute that ends takes its mark with it
}

/** A check record's status word and rowTextUntil, from the instant they were worked out (fromAt). */
type RowState = { readonly fromAt: Millis; readonly word: StatusWord; readonly untilAt: Millis };
const rowStates = new WeakMap<Check, RowState>();

/**
 * statusWordUntil's word and rowTextUntil's instant for `check` at `at`, kept per check record while they
 * hold (from the instant they were worked out until that instant): a table's refresh asks them of every
 * check, and check records are never changed in place.
 */
export function rowStateOf(check: Check, at: Millis): { readonly word: StatusWord; readonly untilAt: Millis } {
  const kept = rowStates.get(check);
  if (kept !== undefined && kept.fromAt <= at && at < kept.untilAt) return kept;
  const status = statusWordUntil(check, at);
  const state = { fromAt: at, word: status.word, untilAt: rowTextUntil(check, at, status.untilAt) };
  rowStates.set(check, state);
  return state;
}

/** The checks page's filters, as read from its query string. */
export type ChecksFilter = {
  readonly q: string;
  readonly status: string;
  /** The tags a check must all have to show; none: any. */
  readonly tags: readonly string[];
  readonly sort: "status" | "name" | "last_ping";
  /** The page of the list asked for, from 1 (PAGE_SIZE rows a page). */
  readonly page: number;
};

/** Rows on one page of the checks list: a 10,000-check project is never one 4 MB table. */
export const PAGE_SIZE = 100;

/** Which rows a page of the list shows: checks `first`..`first + count - 1` (0-based) of `total`. */
export type Paging = { readonly page: number; readonly pages: number; readonly total: number; readonly first: number };

/** Returns `page` of `checks` (sorted already), clamped to the last page, with where it lies in the list. */
export function pageOf<T>(checks: readonly T[], page: number): { readonly rows: readonly T[]; readonly paging: Paging } {
  const pages = Math.max(1, Math.ceil(checks.length / PAGE_SIZE));
  const shown = Math.min(Math.max(1, page), pages);
  const first = (shown - 1) * PAGE_SIZE;
  return { rows: checks.slice(first, first + PAGE_SIZE), paging: { page: shown, pages, total: checks.length, first } };
}

export type ChecksPage = {
  readonly project: Project;
  /** The rows of the page shown. */
  readonly checks: readonly Check[];
  /** Where those rows lie in the whole filtered list. */
  readonly paging: Paging;
  readonly tags: readonly string[];
  readonly filter: ChecksFilter;
  readonly at: Millis;
  readonly down: number;
  /** The name of a check of the project by uuid (a dependency holding another); undefined = none such. */
  readonly nameOf: (uuid: string) => string | undefined;
  /** Each check's status word, computed once per request. */
  readonly wordOf: (check: Check) => StatusWord;
  /** How a check is named in URLs: uuid, or unique_key for read-only viewers. */
  readonly refOf: (check: Check) => string;
  /** A line saying what the last action did ("Check deleted."); none on a plain visit. */
  readonly notice?: string | null;
  /** The rows' ETag (rows-etag.ts): the auto-refresh sends it back in If-None-Match. */
  readonly etag: string;
  /** Rows of the table's last render to reuse (row-memo.ts); absent: every row rendered. */
  readonly memo?: RowMemoRender;
};

export function checksPage(viewer: Viewer, data: ChecksPage): string {
  return documentOf({
    title: `Checks · ${data.project.name}`,
    viewer,
    nav: projectNav(data.project, viewer),
    down: data.down,
    body: html`${data.notice == null ? "" : html`<p class="notice" role="status">${data.notice}</p>`}<div class="heading"><h1>Checks</h1>
${viewer.readonly ? "" : html`<a class="button" href="/projects/${data.project.id}/checks/new">Add check</a>`}</div>
${projectMuteLine(data.project, data.at)}
${filterForm(data.filter, data.tags)}
<table class="list checks" data-refresh="/projects/${data.project.id}/checks/rows">
<thead><tr><th scope="col">Status</th><th scope="col">Name</th><th scope="col">Tags</th><th scope="col">Period / schedule</th><th scope="col">Last ping</th><th scope="col">Last duration</th></tr></thead>
${checkRows(data)}
</table>`,
  });
}

/**
 * The filter form: search, status, the tags chosen (each with a link that drops it, and a hidden field
 * that keeps it on submit), a select that adds one more, and the sort. Each label and its field stay on one
 * line together. The page's script filters as one types or picks (dashboard.js); Filter submits without it.
 */
function filterForm(filter: ChecksFilter, tags: readonly string[]): Html {
  const option = (value: string, label: string, selected: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : ""}>${label}</option>`;
  const chosen = filter.tags.map(
    (t) =>
      html`<span class="tag chosen">${t} <a href="?${filterQuery(filter, { tags: filter.tags.filter((o) => o !== t) })}" aria-label="Stop filtering by tag ${t}">×</a><input type="hidden" name="tag" value="${t}"></span> `,
  );
  const more = tags.filter((t) => !filter.tags.includes(t));
  return html`<form method="get" class="filters" role="search">
<span class="field"><label for="q">Search</label><input id="q" name="q" type="search" value="${filter.q}" placeholder="name, slug, tag or uuid"></span>
<span class="field"><label for="status">Status</label><select id="status" name="status">${option("", "any", filter.status)}${STATUS_WORDS.map((w) => option(w, w, filter.status))}</select></span>
<span class="field">${
    more.length === 0 && filter.tags.length > 0
      ? html`<span class="label">Tags</span>${chosen}`
      : html`<label for="tag">${filter.tags.length === 0 ? "Tag" : "Tags"}</label>${chosen}<select id="tag" name="tag">${option("", filter.tags.length === 0 ? "any" : "add a tag…", "")}${more.map((t) => option(t, t, ""))}</select>`
  }</span>
<span class="field"><label for="sort">Sort</label><select id="sort" name="sort">${option("status", "down first", filter.sort)}${option("name", "name", filter.sort)}${option("last_ping", "last ping", filter.sort)}</select></span>
<button type="submit">Filter</button></form>`;
}

/** The query string of the list filtered by `filter` with `change` made to it, from its first page. */
function filterQuery(filter: ChecksFilter, change: Partial<ChecksFilter> = {}): string {
  const { q, status, tags, sort } = { ...filter, ...change };
  const query = new URLSearchParams();
  if (q !== "") query.set("q", q);
  if (status !== "") query.set("status", status);
  for (const tag of tags) query.append("tag", tag);
  if (sort !== "status") query.set("sort", sort);
  return query.toString();
}

/** The table body alone, every row in full. */
function checkRows(data: CheckRowsData): Html {
  return raw(checkRowsParts(data).full.join(""));
}

/** Rows per part of checkRowsParts. */
const ROWS_PER_PART = 64;

/**
 * The table body in parts of up to ROWS_PER_PART rows, in order: a response sends them one after another
 * and never joins them, since building one string of a 1,000-row table (some 360 kB) and encoding it costs
 * more than the rows themselves do once they are reused (row-memo.ts). `full` has every row; `changed`
 * (only when the client holds the memo's last render) has, for each row reused from that render, a
 * placeholder naming its check (`<tr data-keep="ref"></tr>`), which the page's script replaces with the
 * row it shows already: a refresh after one ping sends one row and 999 placeholders.
 */
export function checkRowsParts(data: CheckRowsData): { readonly full: string[]; readonly changed: string[] | null } {
  const memo = data.memo ?? NO_MEMO;
  // a row's tag adds itself to the filter: the link of each tag made once per render (the memo is kept per
  // filter, rowsVariant, so a reused row's links are this filter's too)
  const tagLinks = new Map<string, Html | null>();
  const tagLink = (tag: string): Html | null => {
    let link = tagLinks.get(tag);
    if (link === undefined) {
      link = data.filter.tags.includes(tag) ? null : html`?${filterQuery(data.filter, { tags: [...data.filter.tags, tag] })}`;
      tagLinks.set(tag, link);
    }
    return link;
  };
  // data-now: the server's instant of this render, from which the page's script words "... ago"
  const head = html`<tbody id="check-rows" data-down="${data.down}" data-etag="${data.etag}" data-now="${data.at}">`.text;
  const full = [head];
  const changed = memo.clientHolds ? [head] : null;
  let part: Html[] = [],
    changedPart: string[] = [];
  const endPart = () => {
    full.push(memo.part(part));
    changed?.push(changedPart.join(""));
    part = [];
    changedPart = [];
  };
  for (const check of data.checks) {
    const word = data.wordOf(check);
    const ref = data.refOf(check);
    const marks = checkMarksOf(check, { at: data.at, nameOf: data.nameOf });
    const row = memo.row(check.uuid, check, rowKey(word, ref, marks), () => checkRow(check, { word, ref, marks, tagLink }));
    part.push(row.html);
    if (changed !== null) changedPart.push(row.reused ? keptRow(ref) : row.html.text);
    if (part.length === ROWS_PER_PART) endPart();
  }
  if (part.length > 0) endPart();
  memo.done();
  const { q, status, tags } = data.filter;
  // an empty project says how to begin; a filter that finds nothing says so
  const none =
    q === "" && status === "" && tags.length === 0
      ? `No checks yet. "Add check" makes the first one (a member or above), or create one through the API with the project's key.`
      : "No checks match.";
  const tail =
    (data.checks.length === 0 ? `<tr class="none"><td colspan="6">${none}</td></tr>` : pagerRow(data.filter, data.paging)) + "</tbody>";
  full.push(tail);
  changed?.push(tail);
  return { full, changed };
}

/** The placeholder of a row the client shows already (dashboard.js puts that row in its place). */
function keptRow(ref: string): string {
  return `<tr data-keep="${escapeHtml(ref)}"></tr>`; // one per unchanged row: no template object for it
}

type CheckRowsData = Pick<ChecksPage, "checks" | "paging" | "filter" | "at" | "down" | "refOf" | "wordOf" | "etag" | "memo" | "nameOf">;

/**
 * The list's last row when it has more than one page: which checks are shown and links to the pages
 * around, keeping the filters. In the table body, so that each refresh brings it with the rows.
 */
function pagerRow(filter: ChecksFilter, paging: Paging): string {
  if (paging.pages === 1) return "";
  const link = (page: number, label: string, rel: string) => {
    const query = filterQuery(filter);
    return html`<a rel="${rel}" href="?${query === "" ? "" : `${query}&`}page=${page}">${label}</a>`;
  };
  const last = Math.min(paging.first + PAGE_SIZE, paging.total);
  return html`<tr class="pager"><td colspan="6"><nav aria-label="Pages of checks"><span class="shown">Checks ${paging.first + 1}–${last} of ${paging.total}</span>
${paging.page > 1 ? link(paging.page - 1, "Previous", "prev") : ""} ${paging.page < paging.pages ? link(paging.page + 1, "Next", "next") : ""}</nav></td></tr>`
    .text;
}

/** What a row shows besides its check record: what rowKey lists, and the link of each tag (null: a tag the filter has). */
type RowParts = { word: StatusWord; ref: string; marks: readonly Mark[]; tagLink: (tag: string) => Html | null };

/**
 * One row of the checks table. Everything it shows comes from its arguments: the check record, what
 * rowKey lists, and the filter its tags' links add to (the same for every render of one row memo).
 */
function checkRow(check: Check, { word, ref, marks, tagLink }: RowParts): Html {
  return html`<tr class="row-${word}" data-ref="${ref}"><td>${statusBadge(word)}${marksHtml(marks)}</td>
<td><a href="/checks/${ref}">${check.name === "" ? "(unnamed)" : check.name}</a>${check.slug === "" ? "" : html`<br><small class="slug">${check.slug}</small>`}</td>
<td>${tagsOf(check.tags).map((t) => tagHtml(t, tagLink(t)))}</td>
<td>${scheduleText(check)}</td>
<td>${check.lastPingAt === null ? "never" : lastPingHtml(check.lastPingAt)}</td>
<td>${check.lastDurationMs === null || check.lastDurationMs <= 0 ? "" : durationText(check.lastDurationMs)}</td></tr>`;
}

/** A row's tag: a link adding it to the filter (`href`), or, when the filter has it already, plain. */
function tagHtml(tag: string, href: Html | null): Html {
  return href === null
    ? html`<span class="tag">${tag}</span> `
    : html`<a class="tag" href="${href}" title="Show only checks tagged ${tag} too">${tag}</a> `;
}

/**
 * The last ping's instant, written exactly (UTC); the page's script shows it as "3 minutes ago" from the
 * server's clock (the table's data-now) and keeps it current without asking the server again.
 */
function lastPingHtml(at: Millis): Html {
  const exact = exactText(at);
  return html`<time class="ago" datetime="${new Date(at).toISOString()}" title="${exact}">${exact}</time>`;
}

/** The key of what a row shows besides its check record (row-memo.ts reuses a row only while both are the same). */
function rowKey(word: StatusWord, ref: string, marks: readonly Mark[]): string {
  return `${word} ${ref} ${marksKey(marks)}`; // a dependency's name is not in this check's record
}

/** Renders every row (no memo: the full page's first render of a table without one). */
const NO_MEMO: RowMemoRender = {
  clientHolds: false,
  row: (_id, _record, _key, render) => ({ html: render(), reused: false }),
  part: joinRows,
  done: () => {},
};
