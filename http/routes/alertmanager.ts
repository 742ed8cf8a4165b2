// POST /api/alertmanager/<ping key> (or /api/alertmanager with "Authorization: Bearer <ping key>"): a
// Prometheus Alertmanager webhook receiver (CONTRACT "Alerting, third part"). Each alert of the payload
// pings the project's check named by its labels, as /ping/<ping key>/<slug> would, answered once every ping
// is stored: the slug is the label hcd_check, else the alert's name slugified ("Watchdog" → "watchdog");
// a firing alert sends the label hcd_signal's signal (success when absent), a resolved one sends success
// when its firing meant fail, else a log entry. So the always-firing Watchdog alert, repeated by
// Alertmanager, keeps its check up, and its check goes down when the repeats stop: a dead man's switch.
import type { H3, H3Event } from "h3";
import type { Millis, PingSignal, Project } from "../../engine/model.ts";
import { PING_SIGNALS } from "../../engine/model.ts";
import { isSlug, isSlugSegment } from "../../engine/ids.ts";
import { lookUp } from "../../host/pool-api.ts";
import { slugify } from "../../lib/slugify.ts";
import type { AppDeps } from "../deps.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError } from "../errors.ts";
import { endpoint, json } from "../endpoint.ts";
import { readBodyBytes } from "../body.ts";
import { pingFailureOf } from "../errors.ts";
import { parsePingQuery, remoteAddress } from "./pings.ts";

/** Alertmanager sends every alert of a group in one payload; its size is bounded by what hcd reads. */
const MAX_PAYLOAD_BYTES = 1024 * 1024;
const MAX_ALERTS = 1_000;

/** One alert of a webhook payload, as far as hcd reads it. */
type Alert = { readonly status: "firing" | "resolved"; readonly labels: Readonly<Record<string, string>>; readonly raw: unknown };

/** What one alert did: the check's slug, and whether it was pinged, created, not found or refused. */
type AlertResult = {
  readonly slug: string;
  readonly signal: PingSignal;
  readonly result: "ok" | "created" | "not_found" | "refused";
  readonly error?: string;
};

export function alertmanagerRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock } = deps;
  const receive = async (event: H3Event, pingKey: string) => {
    if (!isSlugSegment(pingKey)) throw httpError(404, "not found");
    const project = await lookUp(pool, () => pool.projectByPingKey(pingKey));
    if (project === null) throw httpError(404, "not found");
    const alerts = alertsOf(await readBodyBytes(event.req, MAX_PAYLOAD_BYTES));
    const { create } = parsePingQuery(event.url.search);
    const results: AlertResult[] = [];
    for (const alert of alerts) results.push(await pingFor(alert, project, pingKey, create, event, clock.now()));
    const pinged = results.filter((r) => r.result === "ok" || r.result === "created");
    // nothing pinged: Alertmanager logs the failed notification (and retries a 5xx, not a 404)
    if (pinged.length === 0 && alerts.length > 0) {
      return json({ error: "no check of this project is named by the alerts' labels (hcd_check, or alertname)", alerts: results }, 404);
    }
    return json({ alerts: results });
  };

  async function pingFor(
    alert: Alert,
    project: Project,
    pingKey: string,
    create: boolean,
    event: H3Event,
    at: Millis,
  ): Promise<AlertResult> {
    const named = alert.labels.hcd_check ?? slugify(alert.labels.alertname ?? "");
    const firing = firingSignalOf(alert.labels.hcd_signal);
    if (firing === null) return { slug: named, signal: "log", result: "refused", error: "hcd_signal must be success, fail, start or log" };
    const signal: PingSignal = alert.status === "firing" ? firing : firing === "fail" ? "success" : "log";
    if (!isSlug(named) || named === "")
      return { slug: named, signal, result: "refused", error: "the check's slug must be lower-case letters, digits, _ and -" };
    const body = new TextEncoder().encode(JSON.stringify(alert.raw)).subarray(0, project.pingBodyLimit);
    const outcome = await pool.ping(project.id, {
      target: { pingKey, slug: named, create },
      signal,
      exitStatus: null,
      method: "POST",
      scheme: event.req.headers.get("x-forwarded-proto") ?? "http",
      remoteAddr: remoteAddress(event.req.headers.get("x-forwarded-for") ?? undefined, remoteOf(event)),
      ua: event.req.headers.get("user-agent") ?? "",
      rid: null,
      body: body.length === 0 ? null : body,
      at,
    });
    if (outcome.ok) return { slug: named, signal, result: outcome.value.created ? "created" : "ok" };
    if (outcome.failure.code === "not_found") return { slug: named, signal, result: "not_found" };
    return { slug: named, signal, result: "refused", error: pingFailureOf(outcome.failure)[1] };
  }

  endpoint(
    app,
    "/api/alertmanager/:key",
    {
      POST: (event) => receive(event, event.context.params?.key ?? ""),
    },
    { report: opts.report, cors: false },
  );
  endpoint(
    app,
    "/api/alertmanager",
    {
      POST: (event) => {
        const auth = event.req.headers.get("authorization") ?? "";
        const match = /^Bearer (\S+)$/i.exec(auth);
        if (match === null)
          throw httpError(401, "the project's ping key is needed: in the URL (/api/alertmanager/<ping key>) or as Authorization: Bearer");
        return receive(event, match[1]);
      },
    },
    { report: opts.report, cors: false },
  );
}

/** The signal a firing alert sends: the label hcd_signal's, success when absent; null when the label names none. */
function firingSignalOf(label: string | undefined): PingSignal | null {
  if (label === undefined) return "success";
  return PING_SIGNALS.find((signal) => signal === label) ?? null;
}

/** The alerts of an Alertmanager webhook payload (version 4); anything else is a 400. */
function alertsOf(bytes: Uint8Array): Alert[] {
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw httpError(400, "the body is not JSON: an Alertmanager webhook payload was expected");
  }
  const list: unknown = typeof payload === "object" && payload !== null ? (payload as { alerts?: unknown }).alerts : undefined;
  if (!Array.isArray(list)) throw httpError(400, "alerts: an Alertmanager webhook payload has a list of alerts");
  if (list.length > MAX_ALERTS) throw httpError(400, `alerts: at most ${MAX_ALERTS} a payload`);
  return (list as unknown[]).map((item, i) => {
    const alert = typeof item === "object" && item !== null ? (item as { status?: unknown; labels?: unknown }) : null;
    const labels = alert?.labels;
    if (alert === null || (alert.status !== "firing" && alert.status !== "resolved"))
      throw httpError(400, `alerts[${i}].status must be firing or resolved`);
    if (
      typeof labels !== "object" ||
      labels === null ||
      Array.isArray(labels) ||
      !Object.values(labels).every((v) => typeof v === "string")
    ) {
      throw httpError(400, `alerts[${i}].labels must be an object of strings`);
    }
    return { status: alert.status, labels: labels as Record<string, string>, raw: item };
  });
}

/** The socket address of the request (node:http's, else what h3 knows). */
function remoteOf(event: H3Event): string | undefined {
  const node = event.runtime?.node?.req;
  return node !== undefined ? node.socket?.remoteAddress : event.req.ip;
}
