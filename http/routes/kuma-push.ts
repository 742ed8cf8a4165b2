// Uptime Kuma's push endpoint: /api/push/<token>?status=up|down&msg=...&ping=... (any method), answered as
// Kuma 2.x answers (server/routers/api-router.js): 200 {"ok": true}; an unknown token or a bad ping value
// 404 {"ok": false, "msg": ...}. It pings the check whose push_token it is, through the same pool call as
// /ping/<uuid> (the durable intake: answered once stored) and the same limits: "up" (the default) is a
// success, any other status a failure, msg the ping's body (cut to the project's limit by its shard). Kuma's
// ping value (a response time) is checked as Kuma checks it and not kept: hcd logs no response times.
import type { H3, H3Event } from "h3";
import { HTTPResponse } from "h3";
import type { Millis } from "../../engine/model.ts";
import { isPushToken } from "../../engine/ids.ts";
import type { Pool } from "../../host/pool-api.ts";
import { lookUp } from "../../host/pool-api.ts";
import { isServiceUnavailable } from "../../host/unavailable.ts";
import { isStoreUnavailable } from "../../host/write-failures.ts";
import { log } from "../../host/log.ts";
import type { AppDeps } from "../deps.ts";
import { pingFailureOf } from "../errors.ts";
import { remoteAddress } from "./pings.ts";

/** Kuma's bound of a ping value in ms (100 billion, about 3.17 years). */
const MAX_PING_MS = 100_000_000_000;

const NOT_FOUND = "Monitor not found or not active.";
const BAD_PING = `Invalid ping value. Must be between 0 and ${MAX_PING_MS} ms.`;

/** What a push asks: its status word, message and ping value as Kuma reads them from the query. */
export type PushQuery = { readonly up: boolean; readonly msg: string | null; readonly pingValid: boolean };

/** Reads a push's query as Kuma does: status "up" unless another is given, msg (Kuma stores "OK" without one), ping a number or nothing. */
export function pushQueryOf(params: URLSearchParams): PushQuery {
  const status = params.get("status");
  const msg = params.get("msg");
  const ping = Number.parseFloat(params.get("ping") ?? ""); // Kuma: parseFloat(ping) || null
  const pingValid = Number.isNaN(ping) || ping === 0 || (ping >= 0 && ping <= MAX_PING_MS);
  return { up: status === null || status === "" || status === "up", msg: msg === null || msg === "" ? null : msg, pingValid };
}

/** Answers one push: the status and Kuma's JSON. */
export async function answerPush(
  token: string,
  event: { method: string; query: URLSearchParams; header(name: string): string | undefined; socketAddress: string | undefined },
  ctx: { pool: Pool; at: Millis },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const query = pushQueryOf(event.query);
  if (!query.pingValid) return { status: 404, body: { ok: false, msg: BAD_PING } };
  const found = isPushToken(token) ? await lookUp(ctx.pool, () => ctx.pool.checkByPushToken(token)) : null;
  if (found === null) return { status: 404, body: { ok: false, msg: NOT_FOUND } };
  const outcome = await ctx.pool.ping(found.project.id, {
    target: { uuid: found.uuid },
    signal: query.up ? "success" : "fail",
    exitStatus: null,
    method: event.method,
    scheme: event.header("x-forwarded-proto") ?? "http",
    remoteAddr: remoteAddress(event.header("x-forwarded-for"), event.socketAddress),
    ua: event.header("user-agent") ?? "",
    rid: null,
    body: query.msg === null ? null : Buffer.from(query.msg, "utf8"),
    at: ctx.at,
  });
  if (!outcome.ok) {
    const [status] = pingFailureOf(outcome.failure);
    return status === 404 ? { status: 404, body: { ok: false, msg: NOT_FOUND } } : { status, body: { ok: false, msg: "push refused" } };
  }
  return { status: 200, body: { ok: true } };
}

/** Registers /api/push/<token> on `app`. */
export function kumaPushRoutes(app: H3, deps: Pick<AppDeps, "pool" | "clock">): void {
  const { pool, clock } = deps;
  app.all("/api/push/:token", async (event: H3Event) => {
    const node = event.runtime?.node?.req;
    const header = (name: string) => {
      const value = node !== undefined ? node.headers[name] : (event.req.headers.get(name) ?? undefined);
      return Array.isArray(value) ? value.join(", ") : value;
    };
    let answer: { status: number; body: Record<string, unknown> };
    try {
      answer = await answerPush(
        event.context.params?.token ?? "",
        {
          method: event.req.method,
          query: event.url.searchParams,
          header,
          socketAddress: node !== undefined ? node.socket?.remoteAddress : event.req.ip,
        },
        { pool, at: clock.now() },
      );
    } catch (error) {
      const unavailable = isServiceUnavailable(error) || isStoreUnavailable(error); // not stored: not acknowledged
      if (!unavailable) log.error({ err: error }, "unexpected error on a push");
      answer = {
        status: unavailable ? 503 : 500,
        body: { ok: false, msg: unavailable ? "service unavailable, try again" : "internal error" },
      };
    }
    return new HTTPResponse(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    });
  });
}
