// The admin API's operations for bringing data over from another instance (docs/moving-from-healthchecks.md):
// a check put whole under its own uuid (PUT /admin/v1/projects/<id>/checks/<uuid>), its past pings
// (POST .../checks/<uuid>/pings), and which project holds a check (GET /admin/v1/checks/<uuid>). The
// import command (app/import/) goes through these, over HTTP or in-process. Every request needs the admin token.
import type { H3, H3Event } from "h3";
import type { CheckImport } from "../../engine/check-import.ts";
import { importResultOf } from "../../engine/check-import.ts";
import type { Channel, CheckSpec } from "../../engine/model.ts";
import { isUuid } from "../../engine/ids.ts";
import type { Pool } from "../../host/pool-api.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import type { Handler } from "../endpoint.ts";
import { endpoint, json } from "../endpoint.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, unwrap } from "../errors.ts";
import { checkImportOf, IMPORT_BODY_BYTES, pingsImportOf } from "../import-input.ts";
import { jsonBody, projectIdOf } from "./admin-params.ts";

export function adminImportRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock, config } = deps;
  const options = { report: opts.report, cors: false } as const;
  const admin = (event: H3Event) => authorizeAdmin(event.req.headers, config.adminToken);
  const uuidOf = (event: H3Event) => event.context.params?.uuid ?? "";

  // Which project holds a check: how an import finds where an earlier run put a source's checks.
  endpoint(
    app,
    "/admin/v1/checks/:uuid",
    {
      GET: async (event) => {
        admin(event);
        const uuid = uuidOf(event);
        await pool.catchUp();
        const project = isUuid(uuid) ? pool.projectOfCheck(uuid) : null;
        if (project === null) throw httpError(404, "check not found");
        return json({ uuid, project: project.id });
      },
    },
    options,
  );

  // PUT /admin/v1/projects/<id>/checks/<uuid> (a check put whole) is served with the path's other methods
  // by http/routes/admin-checks.ts: importedCheckPut below.

  // Past pings of a check, numbered as they were (at most its n_pings); those its log already holds are
  // left out, and so are those older than its log keeps. "added": how many were logged.
  endpoint(
    app,
    "/admin/v1/projects/:id/checks/:uuid/pings",
    {
      POST: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const at = clock.now();
        const { pings, dryRun } = unwrap(pingsImportOf(await jsonBody(event, IMPORT_BODY_BYTES), at));
        const listed = unwrap(await pool.listPings(projectId, uuidOf(event)));
        const keep = deps.pool.listProjects().find((p) => p.id === projectId)?.pingLogLimit ?? 0;
        const logged = new Set(listed.pings.map((ping) => ping.n));
        // the log keeps a check's newest `keep` pings: those below them would only be trimmed again
        const newest = [...logged, ...pings.map((ping) => ping.record.n)].sort((a, b) => b - a);
        const floor = newest.length > keep ? newest[keep - 1] : 0;
        const missing = pings.filter((ping) => !logged.has(ping.record.n) && ping.record.n >= floor);
        if (dryRun || missing.length === 0) return json({ added: missing.length, ...(dryRun ? { dry_run: true } : {}) });
        return json({ added: unwrap(await pool.importPings(projectId, uuidOf(event), missing, at)) });
      },
    },
    options,
  );
}

/**
 * PUT /admin/v1/projects/<id>/checks/<uuid>: a check put whole: made with its uuid, settings, state and past
 * flips, or, already in the project, its settings brought up to date (its state and history stay hcd's).
 * "result": created, updated or unchanged.
 */
export function importedCheckPut(deps: AppDeps): Handler {
  const { pool, clock, config } = deps;
  return async (event) => {
    authorizeAdmin(event.req.headers, config.adminToken);
    const projectId = projectIdOf(deps, event);
    const at = clock.now();
    const { check, dryRun } = unwrap(checkImportOf(event.context.params?.uuid ?? "", await jsonBody(event, IMPORT_BODY_BYTES), at));
    if (dryRun) return json({ uuid: check.uuid, result: await dryRunResult(pool, projectId, check), dry_run: true });
    const imported = await pool.importCheck(projectId, check, at);
    if (!imported.ok && imported.failure.code === "forbidden") throw httpError(409, "another project has a check with this uuid");
    const { check: stored, result } = unwrap(imported);
    if (result !== "unchanged")
      await recordChange(deps.audit, {
        projectId,
        actor: { kind: "admin" },
        action: "check.imported",
        target: auditTarget.check(stored),
        at,
      });
    return json({ uuid: stored.uuid, result }, result === "created" ? 201 : 200);
  };
}

/** What importing `check` would do, without doing it. */
async function dryRunResult(pool: Pool, projectId: string, check: CheckImport): Promise<string> {
  const found = await pool.getCheck(projectId, { uuid: check.uuid });
  if (!found.ok) {
    if (found.failure.code === "forbidden") throw httpError(409, "another project has a check with this uuid");
    return "created";
  }
  const ids = channelIdsOf(await pool.listChannels(projectId), check.spec.channels);
  return importResultOf(found.value, check, ids);
}

/** The channel ids a spec's channels name (by id or name); an unknown one is left out (the real import refuses it). */
function channelIdsOf(channels: readonly Channel[], refs: CheckSpec["channels"]): string[] | undefined {
  if (refs === undefined) return undefined;
  if ("all" in refs) return channels.map((c) => c.id).sort();
  const ids = refs.refs.flatMap(
    (ref) =>
      channels.find((c) => c.id === ref)?.id ??
      channels
        .filter((c) => c.name === ref)
        .map((c) => c.id)
        .slice(0, 1),
  );
  return [...new Set(ids)].sort();
}
