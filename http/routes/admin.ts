// /admin/v1: projects, channels and their delivery state, the outbox, the virtual clock and flip pruning
// (CONTRACT.md "Admin API").
// Every request needs `Authorization: Bearer <ADMIN_TOKEN>`.
import type { H3, H3Event } from "h3";
import { HTTPResponse } from "h3";
import { Readable } from "node:stream";
import { backupStream } from "../../host/backup.ts";
import { VirtualClock } from "../../host/clock.ts";
import type { ChannelKind, Millis, ServiceKind } from "../../engine/model.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import { jsonBody, projectIdOf } from "./admin-params.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, renderError, unwrap } from "../errors.ts";
import {
  channelEditOf,
  channelInputOf,
  preparedInput,
  clockAdvanceOf,
  groupProblem,
  maintenanceInputOf,
  projectInputOf,
  projectMuteOf,
  pruneBeforeOf,
} from "../admin-input.ts";
import {
  presentChannel,
  presentChannelStates,
  presentChannelValue,
  presentMaintenance,
  presentOutbox,
  presentProject,
} from "../present.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import { keptProjectOf } from "../import-input.ts";
import type { KeptProjectIds, Pool } from "../../host/pool-api.ts";
import type { AuditAction } from "../../host/audit.ts";
import { auditTarget, INSTANCE_LOG, recordChange } from "../../host/audit.ts";

/** Registers the admin API routes on `app`. */
export function adminRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock, config } = deps;
  const options = { report: opts.report, cors: false } as const;
  const admin = (event: H3Event) => authorizeAdmin(event.req.headers, config.adminToken);
  const record = (projectId: string, action: AuditAction, target: string, at: Millis) =>
    recordChange(deps.audit, { projectId, actor: { kind: "admin" }, action, target, at });

  endpoint(
    app,
    "/admin/v1/projects",
    {
      GET: async (event) => {
        admin(event);
        return json({ projects: pool.listProjects().map(presentProject) });
      },
      POST: async (event) => {
        admin(event);
        const body = await jsonBody(event);
        const input = unwrap(projectInputOf(body));
        // a project brought over from elsewhere keeps its id and keys (docs/moving-from-healthchecks.md)
        const kept = unwrap(keptProjectOf(body));
        await pool.catchUp();
        const taken = keptIdsTaken(pool, kept);
        if (taken !== null) throw httpError(409, taken);
        const at = clock.now();
        const project = await pool.createProject({ ...input, kept }, at);
        await record(project.id, "project.created", auditTarget.project(project), at);
        return json(presentProject(project), 201);
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/projects/:id/channels",
    {
      GET: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const [channels, outbox] = await Promise.all([pool.listChannels(projectId), pool.listOutbox()]);
        return json(
          presentChannelStates(
            channels,
            outbox.filter((entry) => entry.projectId === projectId),
          ),
        );
      },
      POST: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const input = unwrap(await preparedInput(unwrap(channelInputOf(await jsonBody(event), deps.serviceKinds)), deps.serviceKinds));
        const channels = await pool.listChannels(projectId);
        if (input.id !== undefined && channels.some((c) => c.id === input.id))
          throw httpError(409, "the project has a channel with this id");
        const loop = groupProblem(input, channels);
        if (loop !== null) throw httpError(400, loop);
        const at = clock.now();
        const channel = unwrap(await pool.addChannel(projectId, input, at));
        await record(projectId, "channel.added", auditTarget.channel(channel), at);
        return json(presentChannel(channel), 201);
      },
    },
    options,
  );

  // Removing an integration: no check notifies it any more, and its waiting notifications are dropped.
  // Editing one: a new name and value, checked as when it was added; its kind stays.
  endpoint(
    app,
    "/admin/v1/projects/:id/channels/:channel",
    {
      // one integration with its value as channel add takes it (its secrets too: the admin token may set them anyway)
      GET: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const channel = (await pool.listChannels(projectId)).find((c) => c.id === event.context.params?.channel);
        if (channel === undefined) throw httpError(404, "channel not found");
        // a stub brought over without its settings (docs/moving-from-healthchecks.md) has no value to show
        // "add to new checks": absent means yes; "notify on every failure": absent means no
        const options = { new_checks: channel.newChecks !== false, every_failure: channel.everyFailure === true };
        if (channel.needsSettings === true) return json({ ...presentChannel(channel), ...options, needs_settings: true });
        const form = isServiceKind(channel.kind) ? deps.serviceKinds.form(channel.kind) : [];
        return json({ ...presentChannel(channel), ...options, value: presentChannelValue(channel.value, form) });
      },
      PUT: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const channels = await pool.listChannels(projectId);
        const channel = channels.find((c) => c.id === event.context.params?.channel);
        if (channel === undefined) throw httpError(404, "channel not found");
        const input = unwrap(
          await preparedInput(unwrap(channelEditOf(await jsonBody(event), channel, deps.serviceKinds)), deps.serviceKinds),
        );
        const loop = groupProblem(input, channels);
        if (loop !== null) throw httpError(400, loop);
        const at = clock.now();
        const updated = unwrap(await pool.updateChannel(projectId, channel.id, input, at));
        await record(projectId, "channel.updated", auditTarget.channel(updated), at);
        return json(presentChannel(updated));
      },
      DELETE: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const at = clock.now();
        const removed = unwrap(await pool.removeChannel(projectId, event.context.params?.channel ?? "", at));
        await record(projectId, "channel.removed", auditTarget.channel(removed), at);
        return json(presentChannel(removed));
      },
    },
    options,
  );

  // CONTRACT "Alerting fields of a check": the project-wide mute (a maintenance window)
  endpoint(
    app,
    "/admin/v1/projects/:id/mute",
    {
      POST: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const untilAt = unwrap(projectMuteOf(await jsonBody(event)));
        const at = clock.now();
        const project = unwrap(await pool.muteProject(projectId, untilAt, at));
        await record(projectId, untilAt === null ? "project.unmuted" : "project.muted", auditTarget.project(project), at);
        return json({ muted_until: isoSeconds(project.mutedUntilAt ?? null) });
      },
    },
    options,
  );

  // CONTRACT "Alerting, second part": recurring maintenance windows
  endpoint(
    app,
    "/admin/v1/projects/:id/maintenance",
    {
      POST: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const input = unwrap(maintenanceInputOf(await jsonBody(event)));
        const at = clock.now();
        const window = unwrap(await pool.addMaintenance(projectId, input, at));
        await record(projectId, "maintenance.added", auditTarget.maintenance(window), at);
        return json(presentMaintenance(window), 201);
      },
      GET: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const project = pool.listProjects().find((p) => p.id === projectId);
        return json({ maintenance: (project?.maintenance ?? []).map(presentMaintenance) });
      },
    },
    options,
  );
  endpoint(
    app,
    "/admin/v1/projects/:id/maintenance/:window",
    {
      // an edit: the window keeps its id; the same fields and rules as adding one
      PUT: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const input = unwrap(maintenanceInputOf(await jsonBody(event)));
        const at = clock.now();
        const window = unwrap(await pool.updateMaintenance(projectId, event.context.params?.window ?? "", input, at));
        await record(projectId, "maintenance.updated", auditTarget.maintenance(window), at);
        return json(presentMaintenance(window));
      },
      DELETE: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const windowId = event.context.params?.window ?? "";
        const window = pool
          .listProjects()
          .find((p) => p.id === projectId)
          ?.maintenance?.find((w) => w.id === windowId);
        const at = clock.now();
        unwrap(await pool.removeMaintenance(projectId, windowId, at));
        await record(projectId, "maintenance.removed", auditTarget.maintenance(window ?? { name: "", id: windowId }), at);
        return json(null, 204);
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/outbox",
    {
      GET: async (event) => {
        admin(event);
        return json(presentOutbox(await pool.listOutbox()));
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/clock",
    {
      GET: async (event) => {
        admin(event);
        return json(clockView(clock.now()));
      },
      POST: async (event) => {
        admin(event);
        if (!(clock instanceof VirtualClock)) throw httpError(404, "the clock is not virtual (start with CLOCK=virtual)");
        const stepMs = unwrap(clockAdvanceOf(await jsonBody(event)));
        const now = clock.advance(stepMs);
        await pool.advance(now); // every deadline inside the step fires, in order, before we answer
        return json(clockView(now));
      },
    },
    options,
  );

  // The whole store as a backup file (host/backup-archive.ts), streamed while pings keep being served.
  app.all("/admin/v1/backup", async (event) => {
    try {
      admin(event);
      if (event.req.method !== "POST") throw httpError(405, "method not allowed", { allow: "POST" });
      const stream = await backupStream(pool, {
        dataDir: config.dataDir,
        scratchParent: config.dataDir,
        at: new Date(clock.now()),
        audit: deps.audit,
      });
      // recorded once its copy is made (so not in the backup itself): who took the whole store away
      await recordChange(deps.audit, {
        projectId: INSTANCE_LOG,
        actor: { kind: "admin" },
        action: "backup.created",
        target: "the whole store",
        at: clock.now(),
      });
      return new HTTPResponse(Readable.toWeb(stream) as ReadableStream, {
        status: 200,
        headers: {
          "content-type": "application/octet-stream",
          "cache-control": "no-store",
          "content-disposition": 'attachment; filename="hcd.backup"',
        },
      });
    } catch (error) {
      return renderError(error, { report: opts.report });
    }
  });

  endpoint(
    app,
    "/admin/v1/prune",
    {
      POST: async (event) => {
        admin(event);
        const beforeAt = unwrap(pruneBeforeOf(await jsonBody(event), clock.now()));
        const pruned = await pool.pruneFlips(beforeAt);
        return json({ pruned, before: new Date(beforeAt).toISOString() });
      },
    },
    options,
  );
}

function clockView(now: Millis): { now: string } {
  return { now: new Date(now).toISOString() };
}

/** Why a kept id or key cannot be a new project's (another project has it; a deleted project's id may be used again), or null. */
function keptIdsTaken(pool: Pool, kept: KeptProjectIds): string | null {
  if (kept.id !== undefined && pool.listProjects().some((p) => p.id === kept.id)) return "a project with this id exists";
  if (kept.pingKey !== undefined && pool.projectByPingKey(kept.pingKey) !== null) return "another project has this ping_key";
  for (const key of [kept.apiKey, kept.apiKeyReadonly]) {
    if (key !== undefined && key !== "" && pool.authenticate(key) !== null) return "another project has this API key";
  }
  if (kept.apiKey !== undefined && kept.apiKey !== "" && kept.apiKey === kept.apiKeyReadonly)
    return "api_key and api_key_readonly are the same";
  return null;
}

function isServiceKind(kind: ChannelKind): kind is ServiceKind {
  return (SERVICE_KINDS as readonly string[]).includes(kind);
}
