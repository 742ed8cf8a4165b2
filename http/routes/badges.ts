// Badges: /badge/<project badge key>/<sig>[-2]/<tag>.<fmt>, /badge/<key>/<sig>[-2].<fmt> (all checks)
// and /b/<states>/<check badge key>.<fmt> (reference views.badge and views.check_badge; fact sheet §9).
import type { H3, H3Event } from "h3";
import { HTTPResponse } from "h3";
import type { Check, Millis } from "../../engine/model.ts";
import { assertNever } from "../../engine/model.ts";
import type { Pool } from "../../host/pool-api.ts";
import { lookUp } from "../../host/pool-api.ts";
import { statusAt } from "../../engine/status.ts";
import type { AppDeps } from "../deps.ts";
import { signatureMatches, statesOfSignature } from "../badge-urls.ts";
import type { BadgeFormat, BadgeStates, BadgeSummary } from "../badges.ts";
import { DEFAULT_BADGE_LABEL, badgeJson, badgeShields, badgeSvg, isBadgeFormat } from "../badges.ts";

/** A project badge request as the URL states it, before any lookup. */
export type ProjectBadgeRequest = {
  readonly badgeKey: string;
  readonly signature: string;
  readonly tag: string; // "*" = every check of the project
  readonly format: string; // not yet checked against BADGE_FORMATS
};

/** A check badge request as the URL states it. */
export type CheckBadgeRequest = { readonly states: BadgeStates; readonly badgeKey: string; readonly format: string };

const SLUG = /^[-a-zA-Z0-9_]+$/; // Django's slug converter

// Every badge answer: CORS as the reference's @cors("GET") and @never_cache.
const BASE_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "X-Api-Key",
  "access-control-allow-methods": "GET, HEAD, OPTIONS",
  "access-control-max-age": "600",
  "cache-control": "max-age=0, no-cache, no-store, must-revalidate, private",
};
const CONTENT_TYPES = { svg: "image/svg+xml", json: "application/json", shields: "application/json" } satisfies Record<BadgeFormat, string>;

/** Registers the badge routes on `app`. */
export function badgeRoutes(app: H3, deps: AppDeps): void {
  const { pool, clock } = deps;
  const secret = deps.config.badgeSecret;
  app.all("/badge/:badgeKey/:signature/:file", (event) => {
    const params = event.context.params ?? {};
    return answerBadge(event, () =>
      projectBadge(pool, secret, parseProjectBadge(params.badgeKey, params.signature, params.file), clock.now()),
    );
  });
  app.all("/badge/:badgeKey/:file", (event) => {
    const params = event.context.params ?? {};
    return answerBadge(event, () => projectBadge(pool, secret, parseProjectBadge(params.badgeKey, null, params.file), clock.now()));
  });
  app.all("/b/:states/:file", (event) => {
    const params = event.context.params ?? {};
    return answerBadge(event, () => checkBadge(pool, parseCheckBadge(params.states, params.file), clock.now()));
  });
}

/**
 * Returns the project badge a URL asks for, or null when the URL matches no badge route
 * (`signature` null: the `*` form, whose last segment is `<sig>.<fmt>`). Path segments arrive percent-encoded.
 */
export function parseProjectBadge(
  badgeKey: string | undefined,
  signature: string | null,
  file: string | undefined,
): ProjectBadgeRequest | null {
  if (badgeKey === undefined || file === undefined || !SLUG.test(badgeKey)) return null;
  const dot = file.lastIndexOf(".");
  if (dot <= 0) return null;
  const format = file.slice(dot + 1);
  if (!SLUG.test(format)) return null;
  if (signature === null) {
    const sig = file.slice(0, dot);
    return SLUG.test(sig) ? { badgeKey, signature: sig, tag: "*", format } : null;
  }
  if (!SLUG.test(signature)) return null;
  // fact sheet §9: the tag is percent-quoted inside an already encoded path, so it is decoded twice
  const tag = unquote(unquote(file.slice(0, dot)));
  return tag === "" ? null : { badgeKey, signature, tag, format };
}

/** Returns the check badge a URL asks for, or null when it matches no badge route; states 3 = with late, anything else 2. */
export function parseCheckBadge(states: string | undefined, file: string | undefined): CheckBadgeRequest | null {
  if (states === undefined || file === undefined || !/^\d+$/.test(states)) return null;
  const dot = file.lastIndexOf(".");
  if (dot <= 0) return null;
  const format = file.slice(dot + 1);
  if (!SLUG.test(format)) return null;
  return { states: Number(states) === 3 ? 3 : 2, badgeKey: file.slice(0, dot), format };
}

type Rendered = { readonly format: BadgeFormat; readonly label: string; readonly summary: BadgeSummary };

async function projectBadge(pool: Pool, secret: string, request: ProjectBadgeRequest | null, at: Millis): Promise<Rendered | null> {
  if (request === null || !isBadgeFormat(request.format)) return null;
  const project = await lookUp(pool, () => pool.projectByBadgeKey(request.badgeKey));
  if (project === null || !signatureMatches(secret, project.badgeKey, request.tag, request.signature)) return null;
  const all = request.tag === "*";
  const checks = await pool.listChecks(project.id, { tags: all ? [] : [request.tag] });
  const summary = badgeJson(
    checks.map((check) => statusAt(check, at)),
    statesOfSignature(request.signature),
  );
  return { format: request.format, label: all ? DEFAULT_BADGE_LABEL : request.tag, summary };
}

async function checkBadge(pool: Pool, request: CheckBadgeRequest | null, at: Millis): Promise<Rendered | null> {
  if (request === null || !isBadgeFormat(request.format)) return null;
  const found = await lookUp(pool, () => pool.checkByBadgeKey(request.badgeKey));
  if (found === null) return null;
  const outcome = await pool.getCheck(found.project.id, { uuid: found.uuid });
  if (!outcome.ok) return null;
  const check: Check = outcome.value;
  return { format: request.format, label: check.name || check.uuid, summary: badgeJson([statusAt(check, at)], request.states) };
}

/** Method rules first (OPTIONS 204, other than GET/HEAD 405), then the badge, or 404 when there is none. */
async function answerBadge(event: H3Event, render: () => Promise<Rendered | null>): Promise<HTTPResponse> {
  const method = event.req.method;
  if (method === "OPTIONS") return new HTTPResponse(null, { status: 204, headers: BASE_HEADERS });
  if (method !== "GET" && method !== "HEAD") {
    return new HTTPResponse("method not allowed", {
      status: 405,
      headers: { ...BASE_HEADERS, allow: "GET, HEAD, OPTIONS", "content-type": "text/plain; charset=utf-8" },
    });
  }
  const badge = await render();
  if (badge === null)
    return new HTTPResponse("not found", { status: 404, headers: { ...BASE_HEADERS, "content-type": "text/plain; charset=utf-8" } });
  return new HTTPResponse(body(badge), { status: 200, headers: { ...BASE_HEADERS, "content-type": CONTENT_TYPES[badge.format] } });
}

function body({ format, label, summary }: Rendered): string {
  switch (format) {
    case "svg":
      return badgeSvg(label, summary.status);
    case "json":
      return JSON.stringify(summary);
    case "shields":
      return JSON.stringify(badgeShields(label, summary.status));
    default:
      return assertNever(format);
  }
}

/** Percent-decodes like Python's unquote: malformed escapes stay as they are. */
function unquote(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%[0-9a-fA-F]{2}/g, (escape) => String.fromCharCode(Number.parseInt(escape.slice(1), 16)));
  }
}
