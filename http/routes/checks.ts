// /api/v1, /api/v2, /api/v3: checks, pings, flips, channels, badges, status (spec §4.1): authorize → input →
// pool → present. One set of routes with the version as a path parameter (host/api-versions.ts has its rules).
// Order of decisions, as the reference (research §2): method 405 → body 400 → key 401 → exists 404 →
// owner 403 → validation 400 → state 409 / limit 403.
import type { H3, H3Event } from "h3";
import type { Check, Millis } from "../../engine/model.ts";
import type { Clock } from "../../host/clock.ts";
import type { Caller, CheckRef } from "../../host/pool-api.ts";
import { lookUp } from "../../host/pool-api.ts";
import type { AppDeps } from "../deps.ts";
import { apiKeyOf, authorize, enforceRateLimit, RateLimiter } from "../auth.ts";
import type { Reply } from "../endpoint.ts";
import { endpoint, json } from "../endpoint.ts";
import { jsonResponse } from "../response.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, unwrap } from "../errors.ts";
import type { JsonObject } from "../body.ts";
import { checkRequestOf, isUniqueKey, pingNumberOf, requestInVersion } from "../input.ts";
import { checkQueryOf, flipQueryOf } from "../query-input.ts";
import { isUuid } from "../../engine/ids.ts";
import { parseJsonObject, readBodyBytes } from "../body.ts";
import { presentBadges, presentChannel, presentFlip, presentPing } from "../present.ts";
import { presentCheck } from "../../host/check-json.ts";
import { simulateRoutes } from "./simulate.ts";
import { downtimeRoutes } from "./downtime.ts";
import { apiPath, inVersions, versionOf } from "../versioned-routes.ts";
import type { AuditAction } from "../../host/audit.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";

/** Registers the management API's routes, under each version it serves, on `app`. */
export function checkRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter; rateClock: Clock }): void {
  const { pool, clock, config } = deps;
  const { siteRoot } = config;
  const limiter = new RateLimiter(config.apiRateLimit);
  const cors = { report: opts.report, cors: true, accepts: inVersions() } as const;
  const byUuid = { ...cors, accepts: inVersions((p) => isUuid(p.id ?? "")) };
  const byUuidOrKey = { ...cors, accepts: inVersions((p) => isUuid(p.id ?? "") || isUniqueKey(p.id ?? "")) };

  /** Returns the caller of a request (key from the header, else the body's api_key) and counts it against the rate limit. */
  const callerOf = async (event: H3Event, body: JsonObject | null, write: boolean): Promise<Caller> => {
    const apiKey = apiKeyOf(event.req.headers, body);
    if (apiKey) await lookUp(pool, () => pool.authenticate(apiKey)); // a key just made on another node
    const caller = authorize(pool, apiKey, { write });
    enforceRateLimit(limiter, apiKey ?? "", opts.rateClock.now());
    return caller;
  };
  /** Records a change made with a read-write key (keys have no names yet). */
  const record = (projectId: string, action: AuditAction, check: Check, at: Millis) =>
    recordChange(deps.audit, {
      projectId,
      actor: { kind: "apiKey", name: null, readonly: false },
      action,
      target: auditTarget.check(check),
      at,
    });
  const emailDomain = config.smtpPort === null ? null : config.emailDomain; // ping_email only while SMTP listens
  /** Returns how a check is shown at `at` to this request: its key's view, in the version its path names. */
  const view = (event: H3Event, shown: { at: Millis; readonly: boolean }) => ({
    ...shown,
    siteRoot,
    emailDomain,
    version: versionOf(event),
  });

  endpoint(
    app,
    apiPath("/checks"),
    {
      GET: async (event) => {
        const at = clock.now();
        const caller = await callerOf(event, null, false);
        const document = await pool.listChecksJson(
          caller.project.id,
          checkQueryOf(event.url.searchParams),
          view(event, { at, readonly: caller.readonly }),
        );
        return { status: 200, body: document, contentType: "application/json" };
      },
      POST: async (event) => {
        const at = clock.now();
        const body = await jsonBody(event, { nullAsEmpty: false });
        const { project } = await callerOf(event, body, true);
        const request = requestInVersion(unwrap(checkRequestOf(body, null)), versionOf(event));
        const { check, created } = unwrap(await pool.createCheck(project.id, request.spec, request.unique, at));
        // an existing check matched by `unique` is updated with the request's fields (200)
        await record(project.id, created ? "check.created" : "check.updated", check, at);
        return json(presentCheck(check, view(event, { at, readonly: false })), created ? 201 : 200);
      },
    },
    cors,
  );

  endpoint(
    app,
    apiPath("/checks/:id"),
    {
      GET: async (event) => {
        const at = clock.now();
        const caller = await callerOf(event, null, false);
        const check = unwrap(await pool.getCheck(caller.project.id, refOf(event)));
        return json(presentCheck(check, view(event, { at, readonly: caller.readonly })));
      },
      POST: async (event) => {
        const at = clock.now();
        const uuid = uuidOf(event);
        const body = await jsonBody(event, { nullAsEmpty: false });
        const { project } = await callerOf(event, body, true);
        const stored = unwrap(await pool.getCheck(project.id, { uuid })); // 404 / 403 before validation
        const request = requestInVersion(unwrap(checkRequestOf(body, stored)), versionOf(event));
        const check = unwrap(await pool.updateCheck(project.id, uuid, request.spec, at));
        await record(project.id, "check.updated", check, at);
        return json(presentCheck(check, view(event, { at, readonly: false })));
      },
      DELETE: async (event) => {
        const at = clock.now();
        const uuid = uuidOf(event);
        const { project } = await callerOf(event, null, true);
        const check = unwrap(await pool.deleteCheck(project.id, uuid, at));
        await record(project.id, "check.deleted", check, at);
        // research §8: the reference answers channels "" (the links are gone by then)
        return json(presentCheck({ ...check, channels: [] }, view(event, { at, readonly: false })));
      },
    },
    byUuidOrKey,
  );

  const pauseOrResume =
    (action: "pauseCheck" | "resumeCheck") =>
    async (event: H3Event): Promise<Reply> => {
      const at = clock.now();
      const body = await jsonBody(event, { nullAsEmpty: true });
      const { project } = await callerOf(event, body, true);
      const check = unwrap(await pool[action](project.id, uuidOf(event), at));
      await record(project.id, action === "pauseCheck" ? "check.paused" : "check.resumed", check, at);
      return json(presentCheck(check, view(event, { at, readonly: false })));
    };
  endpoint(app, apiPath("/checks/:id/pause"), { POST: pauseOrResume("pauseCheck") }, byUuid);
  endpoint(app, apiPath("/checks/:id/resume"), { POST: pauseOrResume("resumeCheck") }, byUuid);
  // CONTRACT "Alerting, second part": 200 with the check while it is down, 409 otherwise
  endpoint(
    app,
    apiPath("/checks/:id/acknowledge"),
    {
      POST: async (event) => {
        const at = clock.now();
        const body = await jsonBody(event, { nullAsEmpty: true });
        const { project } = await callerOf(event, body, true);
        const check = unwrap(await pool.acknowledgeCheck(project.id, uuidOf(event), "api", at));
        await record(project.id, "check.acknowledged", check, at);
        return json(presentCheck(check, view(event, { at, readonly: false })));
      },
    },
    byUuid,
  );

  endpoint(
    app,
    apiPath("/checks/:id/pings"),
    {
      GET: async (event) => {
        const uuid = uuidOf(event);
        const { project } = await callerOf(event, null, true);
        const { pings, durationsMs } = unwrap(await pool.listPings(project.id, uuid));
        return json({
          pings: pings.map((ping, i) =>
            presentPing(ping, { checkUuid: uuid, siteRoot, durationMs: durationsMs[i] ?? null, version: versionOf(event) }),
          ),
        });
      },
    },
    byUuid,
  );

  endpoint(
    app,
    apiPath("/checks/:id/pings/:n/body"),
    {
      GET: async (event) => {
        const uuid = uuidOf(event);
        const { project } = await callerOf(event, null, true);
        const n = pingNumberOf(event.context.params?.n ?? "") ?? -1;
        const body = unwrap(await pool.pingBody(project.id, uuid, n));
        // research §10: exactly text/plain, no charset; the stored bytes as they are
        return { status: 200, body, contentType: "text/plain" };
      },
    },
    { ...cors, accepts: inVersions((p) => isUuid(p.id ?? "") && pingNumberOf(p.n ?? "") !== null) },
  );

  endpoint(
    app,
    apiPath("/checks/:id/flips"),
    {
      GET: async (event) => {
        const at = clock.now();
        const { project } = await callerOf(event, null, false);
        const ref = refOf(event);
        const query = flipQueryOf(event.url.searchParams, at);
        // an unknown or foreign check answers 404 / 403 before a bad query's 400
        if (!query.ok) unwrap(await pool.getCheck(project.id, ref));
        const flips = unwrap(await pool.listFlips(project.id, ref, unwrap(query)));
        // project decision: a bare array, as the spec and its clients expect (the reference wraps it in {"flips"})
        return json(flips.map(presentFlip));
      },
    },
    byUuidOrKey,
  );

  simulateRoutes(app, deps, { report: opts.report, callerOf });
  downtimeRoutes(app, deps, { report: opts.report, callerOf });

  endpoint(
    app,
    apiPath("/channels"),
    {
      GET: async (event) => {
        const { project } = await callerOf(event, null, true);
        const channels = await pool.listChannels(project.id);
        return json({ channels: channels.map(presentChannel) });
      },
    },
    cors,
  );

  endpoint(
    app,
    apiPath("/badges"),
    {
      GET: async (event) => {
        const { project } = await callerOf(event, null, false);
        const checks = await pool.listChecks(project.id, { tags: [] });
        return json(presentBadges(project, checks, { siteRoot, badgeSecret: config.badgeSecret }));
      },
    },
    cors,
  );

  // research §14: no key, no CORS, any method; a failing store read answers 500. The body stays the
  // reference's; hcd's release goes in a header, for monitors and upgrade scripts
  const released: Record<string, string> = config.version === undefined ? {} : { "x-hcd-version": config.version };
  app.all(apiPath("/status"), async (event) => {
    versionOf(event); // a version not served: 404
    try {
      await pool.probe();
    } catch (error) {
      opts.report(error);
      return jsonResponse({ error: "store unavailable" }, 500, released);
    }
    return jsonResponse({ status: "OK" }, 200, released);
  });
}

/** Returns the JSON object body of a POST (400 when unparsable or not an object, 413 when too large). */
async function jsonBody(event: H3Event, opts: { nullAsEmpty: boolean }): Promise<JsonObject> {
  return unwrap(parseJsonObject(await readBodyBytes(event.req), opts));
}

/** Returns the check a read endpoint names: by uuid or by unique_key. */
function refOf(event: H3Event): CheckRef {
  const id = event.context.params?.id ?? "";
  return isUuid(id) ? { uuid: id } : { uniqueKey: id };
}

/** Returns the uuid a write endpoint names; a unique_key there matches only the read route → 405. */
function uuidOf(event: H3Event): string {
  const id = event.context.params?.id ?? "";
  if (!isUuid(id)) throw httpError(405, "method not allowed", { allow: "GET, OPTIONS" });
  return id;
}
