// The dashboard's management of a project: rename, each API key created anew or revoked, and delete after
// a confirmation, through the admin API's rules and texts (http/project-settings.ts) and the same pool calls.
// The admin token may all of it; a user as their role allows (engine/roles.ts: keys a manager's, the rest an owner's).
import type { Project } from "../../engine/model.ts";
import { httpError, reasonOf, unwrap } from "../errors.ts";
import { API_KEY_KINDS, deleteProject, newApiKey, projectEditOf, projectNameOf, setApiKey } from "../project-settings.ts";
import type { Failure } from "../../engine/outcome.ts";
import type { Access, DashboardContext } from "./context.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import { projectDeletePage, projectManagePage } from "./project-pages.ts";
import { manageOffer, permit } from "./permits.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

const DONE: Readonly<Record<string, string>> = {
  renamed: "Project renamed.",
  limits: "Limits saved.",
  "key-created": "A new key was created; the old one works no more.",
  "key-revoked": "The key was revoked.",
};

export function projectRoutes(ctx: DashboardContext): void {
  const { deps, route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock } = deps;
  /**
   * The project for `action` (its name and deletion: an owner's; its keys: a manager's and up), or 403: the
   * admin token may everything, an API key none of it (only the admin token managed a project before users).
   */
  const managedProject = (access: Access, id: string, action: "project.change" | "keys.change"): Project => {
    const project = projectFor(access, id);
    permit(access, action, { keys: false, refusal: "only the admin token, or a project's manager or owner, manages a project" });
    return project;
  };
  const keyOf = (kind: string) => {
    const key = Object.hasOwn(API_KEY_KINDS, kind) ? API_KEY_KINDS[kind] : undefined;
    if (key === undefined) throw httpError(404, "no such key");
    return key;
  };

  route("GET", "/projects/:project/manage", async (event) => {
    const access = requireAccess(event);
    const project = managedProject(access, param(event, "project"), "keys.change");
    const done = DONE[event.url.searchParams.get("done") ?? ""] ?? null;
    return htmlResponse(
      projectManagePage(access.viewer, { project, rename: { name: project.name, error: null }, done, may: manageOffer(access) }),
    );
  });

  route("POST", "/projects/:project/rename", async (event) => {
    const access = requireAccess(event);
    const form = await writeForm(event, access);
    const project = managedProject(access, param(event, "project"), "project.change");
    const typed = form.get("name") ?? "";
    const name = projectNameOf({ name: typed });
    if (!name.ok)
      return htmlResponse(
        projectManagePage(access.viewer, {
          project,
          rename: { name: typed, error: reasonOf(name.failure) },
          done: null,
          may: manageOffer(access),
        }),
        400,
      );
    const at = clock.now();
    const renamed = unwrap(await pool.changeProject(project.id, { kind: "rename", name: name.value }, at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "project.renamed",
      target: auditTarget.project(renamed),
      at,
    });
    return redirect(`/projects/${project.id}/manage?done=renamed`);
  });

  route("POST", "/projects/:project/limits", async (event) => {
    const access = requireAccess(event);
    const form = await writeForm(event, access);
    const project = projectFor(access, param(event, "project"));
    if (access.caller !== "admin") throw httpError(403, "only an instance admin (or the admin token) changes a project's limits");
    const typed = {
      checkLimit: form.get("check_limit") ?? "",
      pingLogLimit: form.get("ping_log_limit") ?? "",
      pingBodyLimit: form.get("ping_body_limit") ?? "",
    };
    const edit = projectEditOf({
      name: project.name,
      check_limit: numberOf(typed.checkLimit),
      ping_log_limit: numberOf(typed.pingLogLimit),
      ping_body_limit: numberOf(typed.pingBodyLimit),
    });
    if (!edit.ok)
      return htmlResponse(
        projectManagePage(access.viewer, {
          project,
          rename: { name: project.name, error: null },
          done: null,
          may: manageOffer(access),
          limits: { ...typed, error: plainLimitError(edit.failure) },
        }),
        400,
      );
    const at = clock.now();
    const changed = unwrap(await pool.changeProject(project.id, { kind: "edit", name: project.name, limits: edit.value.limits }, at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "project.limits_changed",
      target: auditTarget.project(changed),
      at,
    });
    return redirect(`/projects/${project.id}/manage?done=limits`);
  });

  route("POST", "/projects/:project/keys/:kind", async (event) => {
    const access = requireAccess(event);
    await writeForm(event, access);
    const project = managedProject(access, param(event, "project"), "keys.change");
    const at = clock.now();
    unwrap(await setApiKey(pool, project.id, keyOf(param(event, "kind")), newApiKey(), at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "key.created",
      target: auditTarget.key(param(event, "kind")),
      at,
    });
    return redirect(`/projects/${project.id}/manage?done=key-created`);
  });

  route("POST", "/projects/:project/keys/:kind/revoke", async (event) => {
    const access = requireAccess(event);
    await writeForm(event, access);
    const project = managedProject(access, param(event, "project"), "keys.change");
    const at = clock.now();
    unwrap(await setApiKey(pool, project.id, keyOf(param(event, "kind")), "", at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "key.revoked",
      target: auditTarget.key(param(event, "kind")),
      at,
    });
    return redirect(`/projects/${project.id}/manage?done=key-revoked`);
  });

  route("GET", "/projects/:project/delete", async (event) => {
    const access = requireAccess(event);
    const project = managedProject(access, param(event, "project"), "project.change");
    const checks = (await pool.listChecks(project.id, { tags: [] })).length;
    return htmlResponse(projectDeletePage(access.viewer, { project, checks }));
  });

  route("POST", "/projects/:project/delete", async (event) => {
    const access = requireAccess(event);
    await writeForm(event, access);
    const project = managedProject(access, param(event, "project"), "project.change");
    const at = clock.now();
    unwrap(await deleteProject(pool, project.id, at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "project.deleted",
      target: auditTarget.project(project),
      at,
    });
    return redirect("/");
  });
}

/** A typed number as the admin API's JSON would carry it (text that is not one stays text, and is refused as not an integer). */
export function numberOf(text: string): number | string {
  return /^\s*-?\d+\s*$/.test(text) ? Number(text) : text;
}

const LIMIT_NAMES: Readonly<Record<string, string>> = {
  check_limit: "The check limit",
  ping_log_limit: "Pings kept per check",
  ping_body_limit: "The ping body limit",
};

/** A limit's error in the form's words: "The check limit must be from 0 to 1000000." */
export function plainLimitError(failure: Failure): string {
  if (failure.code !== "invalid") return reasonOf(failure);
  return `${LIMIT_NAMES[failure.field] ?? failure.field} ${failure.reason === "is not an integer" ? "must be a whole number" : failure.reason}.`;
}
