// The checks list's routes: the page (a page of its rows, filtered and sorted) and its auto-refresh, which
// answers 304 while the rows would not change (rows-etag.ts), else the table's render of the last second
// when the client does not hold it yet (rows-cache.ts), else the rows again with the unchanged ones as
// placeholders (row-memo.ts).
import { performance } from "node:perf_hooks";
import type { HTTPResponse } from "h3";
import type { Check, Project } from "../../engine/model.ts";
import { refFor, filterOf, keptByFilter, sortChecks } from "./check-form.ts";
import type { Access, DashboardContext } from "./context.ts";
import type { StatusWord } from "./pages.ts";
import { statusWordOf, tagsOfAll } from "./pages.ts";
import { checkRowsParts, checksPage, pageOf, rowStateOf } from "./checks-list.ts";
import { freshEtag, rowsEtag, rowsVariant } from "./rows-etag.ts";
import { RowsCache } from "./rows-cache.ts";
import { RowMemo } from "./row-memo.ts";
import { ChecksReplica } from "./checks-replica.ts";
import { encodeParts, htmlPartsResponse, htmlResponse, notModified, param } from "./responses.ts";

/** Registers the checks list's page and its rows. */
export function checksListRoutes(ctx: DashboardContext): void {
  const { route, requireAccess, projectFor } = ctx;
  const { pool, clock } = ctx.deps;
  const rowsCache = new RowsCache(() => performance.now());
  const rowMemo = new RowMemo();
  const replica = new ChecksReplica();

  /** The checks table's data; `clientEtag`: the rows' ETag the client sent (If-None-Match), if any. */
  const checksData = async (access: Access, project: Project, search: string, clientEtag: string | null = null) => {
    const params = new URLSearchParams(search);
    // the checks and their version in one answer of the shard: the checks changed since the kept copy's
    // version (checks-replica.ts)
    const { version, checks: all } = await replica.current(project.id, (since) => pool.checksSince(project.id, since));
    const at = clock.now();
    const filter = filterOf(params);
    // each check's status once: filter, sort and rows all need it, and a cron schedule's is not free;
    // with it, the first instant at which time alone changes what any row shows (rows-etag.ts)
    const words = new Map<Check, StatusWord>();
    let untilAt = Infinity;
    for (const check of all) {
      const state = rowStateOf(check, at);
      words.set(check, state.word);
      if (state.untilAt < untilAt) untilAt = state.untilAt;
    }
    const wordOf = (c: Check): StatusWord => words.get(c) ?? statusWordOf(c, at);
    const tags = tagsOfAll(all);
    const shown = all.filter((c) => keptByFilter(c, wordOf(c), filter, access.viewer.readonly));
    sortChecks(shown, filter.sort, wordOf);
    const { rows, paging } = pageOf(shown, filter.page);
    const down = all.filter((c) => wordOf(c) === "down").length;
    const variant = rowsVariant(search, access.viewer.readonly);
    const etag = rowsEtag({ version, variant, untilAt });
    const memo = rowMemo.render(`${project.id}/${variant}`, { render: etag, client: clientEtag });
    const names = new Map(all.map((c) => [c.uuid, c.name]));
    return {
      project,
      checks: rows,
      paging,
      tags,
      filter,
      at,
      down,
      nameOf: (uuid: string) => names.get(uuid),
      wordOf,
      refOf: (c: Check) => refFor(access.viewer, c),
      etag,
      untilAt,
      memo,
    };
  };

  route("GET", "/projects/:project/checks", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const notice = event.url.searchParams.get("done") === "delete" ? "Check deleted." : null;
    return htmlResponse(checksPage(access.viewer, { ...(await checksData(access, project, event.url.search)), notice }));
  });

  // the auto-refresh: only the table's rows, with the down count for the title; 304 while they would be
  // the same as the ones the client has (rows-etag.ts), which costs one small question to the shard; else
  // the table's render of the last second when the client does not hold it yet (rows-cache.ts)
  route("GET", "/projects/:project/checks/rows", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const ifNoneMatch = event.req.headers.get("if-none-match");
    const variant = rowsVariant(event.url.search, access.viewer.readonly);
    // the server's instant on every answer, a 304 too: the page's script words "... ago" from it
    const now = { "x-hcd-now": String(clock.now()) };
    if (ifNoneMatch !== null) {
      const current = { version: await pool.projectVersion(project.id), variant, at: clock.now() };
      const fresh = freshEtag(ifNoneMatch, current);
      if (fresh !== null) return withHeaders(notModified(fresh), now);
    }
    const table = `${project.id}/${variant}`;
    const shared = rowsCache.shared(table, clock.now(), ifNoneMatch);
    if (shared !== null) return htmlPartsResponse(shared.parts, 200, { etag: shared.etag, ...now });
    const data = await checksData(access, project, event.url.search, ifNoneMatch);
    const { full, changed } = checkRowsParts(data);
    rowsCache.keep(table, { parts: full, etag: data.etag, untilAt: data.untilAt }); // every row: what other refreshes within a second share
    return htmlPartsResponse(encodeParts(changed ?? full), 200, { etag: data.etag, ...now });
  });
}

/** Returns `response` with `headers` set on it. */
function withHeaders(response: HTTPResponse, headers: Record<string, string>): HTTPResponse {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
