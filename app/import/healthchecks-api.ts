// `hcd import healthchecks --from <url> --api-key <key>`: one project read through the Management API (v3,
// else v2, else v1): its checks with their settings, status and last ping, its integrations as stubs of
// the same kind and name (the API does not show their settings), and with `history` each check's pings
// (bodies included, as far as the API keeps them) and flips. The API shows neither the project's name nor
// its ping key: the project is named after the source, and `pingKey` gives it the old one.
import { createHash } from "node:crypto";
import { REMOVED_KINDS, uuidOf } from "./channel-values.ts";
import type { Progress, Skipped, Source, SourceChannel, SourceCheck, SourcePing, SourceProject } from "./model.ts";
import { MAX_BODY_BYTES, SourceApi, SourceError } from "./source-api.ts";
import { IMPORTED_SETTINGS } from "../../http/check-fields.ts";

export type ApiImportOptions = {
  readonly from: string;
  readonly apiKey: string;
  readonly pingKey: string | null;
  readonly project: string | null;
  readonly history: boolean;
  readonly progress: Progress;
  readonly maxWaitMs?: number;
};

export async function readApi(options: ApiImportOptions): Promise<Source> {
  const api = new SourceApi({ from: options.from, apiKey: options.apiKey, progress: options.progress, maxWaitMs: options.maxWaitMs });
  const skipped: Skipped[] = [];
  const { version, checks: listed } = await checkList(api);
  options.progress(`source ${api.base}: API v${version}, ${listed.length} checks`);
  const channels = await channelsOf(api, version, skipped);
  const checks: SourceCheck[] = [];
  for (const [i, item] of listed.entries()) {
    const check = await checkOf(api, version, item, options.history, skipped);
    if (check !== null) checks.push(check);
    if ((i + 1) % 25 === 0) options.progress(`read ${i + 1} of ${listed.length} checks`);
  }
  const host = new URL(api.base).host;
  const create: Record<string, unknown> = {
    name: `Imported from ${host}`.slice(0, 100),
    check_limit: Math.max(20, checks.length),
    ping_log_limit: options.history ? 1000 : 100,
    ...(/^[A-Za-z0-9_-]{16,128}$/.test(options.apiKey) ? { api_key: options.apiKey } : {}),
    ...(options.pingKey === null ? {} : { ping_key: options.pingKey }),
  };
  const project: SourceProject = {
    name: create.name as string,
    id: options.project ?? derivedId(api.base, options.apiKey),
    findByChecks: options.project === null,
    mustExist: options.project !== null,
    create,
    channels,
    checks,
    members: [],
  };
  return { projects: [project], users: [], skipped };
}

/** The check list of the newest API version the source answers, with a read-write key's uuids. */
async function checkList(api: SourceApi): Promise<{ version: number; checks: unknown[] }> {
  for (const version of [3, 2, 1]) {
    const answer = await api.getJson(`/api/v${version}/checks/`);
    if (answer.status === 404) continue;
    if (answer.status === 401 || answer.status === 403)
      throw new SourceError(`the source refused the API key (${answer.status} ${errorOf(answer.json)}): give the project's read-write key`);
    if (answer.status !== 200) throw new SourceError(`GET /api/v${version}/checks/ answered ${answer.status}`);
    const checks = (answer.json as { checks?: unknown } | undefined)?.checks;
    if (!Array.isArray(checks)) throw new SourceError(`GET /api/v${version}/checks/ did not answer a check list`);
    if (checks.length > 0 && checks.every((c) => typeof c === "object" && c !== null && !("uuid" in c) && "unique_key" in c)) {
      throw new SourceError("this is a read-only key: its answers carry no check uuids (the ping URLs). Give the project's read-write key");
    }
    return { version, checks };
  }
  throw new SourceError(`${api.base} has no Healthchecks API (v1 to v3 answered 404)`);
}

async function channelsOf(api: SourceApi, version: number, skipped: Skipped[]): Promise<SourceChannel[]> {
  const answer = await api.getJson(`/api/v${version}/channels/`);
  const list = (answer.json as { channels?: unknown } | undefined)?.channels;
  if (answer.status !== 200 || !Array.isArray(list)) {
    skipped.push({
      kind: "channel",
      name: "all",
      reason: `GET /api/v${version}/channels/ answered ${answer.status}: no integration was brought over`,
    });
    return [];
  }
  const channels: SourceChannel[] = [];
  for (const item of list) {
    const { id, name, kind } = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    const code = uuidOf(id);
    if (code === null || typeof kind !== "string" || typeof name !== "string") {
      skipped.push({
        kind: "channel",
        name: String(typeof name === "string" ? name : id).slice(0, 100),
        reason: "the API listed it without a uuid, kind or name",
      });
      continue;
    }
    const label = `${kind.slice(0, 20)} "${name.slice(0, 100)}"`;
    if (Object.hasOwn(REMOVED_KINDS, kind)) {
      skipped.push({ kind: "channel", name: label, reason: REMOVED_KINDS[kind] });
      continue;
    }
    channels.push({
      id: code,
      kind,
      name: [...name].slice(0, 100).join(""),
      notes: ["the API does not show its settings: it needs them given in hcd"],
    });
  }
  return channels;
}

async function checkOf(api: SourceApi, version: number, item: unknown, history: boolean, skipped: Skipped[]): Promise<SourceCheck | null> {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    skipped.push({ kind: "check", name: "(unreadable)", reason: "the check list holds something that is not a check" });
    return null;
  }
  const json = item as Record<string, unknown>;
  const name = typeof json.name === "string" ? json.name : "";
  const uuid = uuidOf(json.uuid) ?? uuidOf(typeof json.ping_url === "string" ? json.ping_url.split("/").pop() : null);
  if (uuid === null) {
    skipped.push({ kind: "check", name: name || "(unnamed)", reason: "the API shows no uuid for it" });
    return null;
  }
  const label = name === "" ? uuid : name;
  const body: Record<string, unknown> = {};
  for (const field of IMPORTED_SETTINGS) if (Object.hasOwn(json, field) && json[field] !== null) body[field] = json[field]; // hcd's own alerting fields too, from another hcd
  if (!Object.hasOwn(json, "success_kw") && typeof json.subject === "string") {
    // older versions: the subject filter
    body.subject = json.subject;
    if (typeof json.subject_fail === "string") body.subject_fail = json.subject_fail;
  }
  if (body.schedule !== undefined) delete body.timeout; // a schedule's check: its timeout is not shown, nor taken
  const badge = typeof json.badge_url === "string" ? /\/b\/[23]\/([0-9a-f-]{36})\.(svg|json|shields)$/.exec(json.badge_url) : null;
  if (badge !== null && uuidOf(badge[1]) !== null) body.badge_key = uuidOf(badge[1]);
  const notes: string[] = [];
  const shown = typeof json.status === "string" ? json.status : "new";
  body.n_pings = json.n_pings;
  body.last_ping = json.last_ping ?? null;
  if (typeof json.last_duration === "number") body.last_duration = json.last_duration;
  // "grace" is up and late; v1's "started" is a run open (up, or new when never pinged)
  body.status = shown === "grace" || shown === "started" ? (body.last_ping === null ? "new" : "up") : shown; // anything else: hcd refuses it
  const started = json.started === true || shown === "started";
  const channels = typeof json.channels === "string" ? json.channels.split(",").flatMap((id) => uuidOf(id.trim()) ?? []) : [];
  let listed: PingJson[] | null = null;
  if (history || started) {
    try {
      listed = await pingList(api, version, uuid);
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      notes.push(`its pings could not be read: ${error.message}`);
    }
  }
  if (started) {
    const open = openRun(listed ?? []);
    if (open === null) notes.push("a run was open there, but its start is not in the ping log: it counts from the import");
    body.last_start = open?.date ?? new Date().toISOString();
    body.last_start_rid = open?.rid ?? null;
  }
  const precise = (listed ?? []).find(
    (ping) =>
      (ping.type === "success" || ping.type === "fail") &&
      typeof body.last_ping === "string" &&
      Math.abs(Date.parse(ping.date) - Date.parse(body.last_ping)) < 1000,
  );
  if (precise !== undefined) body.last_ping = precise.date;
  // the API shows whole seconds (0 for a run under one): the ping that ended the run has it to the microsecond
  if (precise !== undefined && typeof precise.duration === "number" && typeof json.last_duration === "number")
    body.last_duration = precise.duration;
  if (history) {
    const flips = await flipsOf(api, version, uuid);
    if (typeof flips === "string") notes.push(flips);
    else body.flips = flips;
  }
  const pings = history && listed !== null ? pingsWithBodies(api, version, uuid, listed) : null;
  return { uuid, name: label === uuid ? "" : name, body, channels, pings, notes };
}

type PingJson = { n: number; date: string; type: string; rid: string | null; [field: string]: unknown };

/** The check's ping log as the API lists it (newest first); entries that do not read are left out. */
async function pingList(api: SourceApi, version: number, uuid: string): Promise<PingJson[]> {
  const answer = await api.getJson(`/api/v${version}/checks/${uuid}/pings/`);
  const list = (answer.json as { pings?: unknown } | undefined)?.pings;
  if (answer.status !== 200 || !Array.isArray(list))
    throw new SourceError(
      `GET /api/v${version}/checks/${uuid}/pings/ answered ${answer.status}${Array.isArray(list) ? "" : " without a ping list"}`,
    );
  return list.flatMap((item): PingJson[] => {
    const p = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof p.n !== "number" || !Number.isSafeInteger(p.n) || p.n < 1 || typeof p.date !== "string") return [];
    return [{ ...p, n: p.n, date: p.date, type: typeof p.type === "string" ? p.type : "success", rid: uuidOf(p.rid) }];
  });
}

/** The start of the run still open: the newest "start" with no success or failure after it. */
function openRun(pings: readonly PingJson[]): { date: string; rid: string | null } | null {
  for (const ping of pings) {
    if (ping.type === "success" || ping.type === "fail") return null;
    if (ping.type === "start") return { date: ping.date, rid: ping.rid };
  }
  return null;
}

/** The check's flips, oldest first, as the admin API takes them; the API shows only up (1) or not (0): a not-up is "down". */
async function flipsOf(api: SourceApi, version: number, uuid: string): Promise<Record<string, unknown>[] | string> {
  const answer = await api.getJson(`/api/v${version}/checks/${uuid}/flips/`);
  // Healthchecks answers {"flips": [...]}, hcd a bare list
  const list = Array.isArray(answer.json) ? answer.json : (answer.json as { flips?: unknown } | undefined)?.flips;
  if (answer.status !== 200 || !Array.isArray(list)) return `its flips could not be read (GET .../flips/ answered ${answer.status})`;
  const flips = list
    .flatMap((item) => {
      const f = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
      return typeof f.timestamp === "string" && (f.up === 0 || f.up === 1)
        ? [{ timestamp: f.timestamp, to: f.up === 1 ? "up" : "down" }]
        : [];
    })
    .reverse()
    .slice(-1000);
  let from = "new";
  return flips.map((flip) => {
    const made = { timestamp: flip.timestamp, from, to: flip.to, reason: "" };
    from = flip.to;
    return made;
  });
}

/** The pings in the admin API's form, each body read when the API links one (404: none kept there). */
function pingsWithBodies(api: SourceApi, version: number, uuid: string, listed: readonly PingJson[]): () => Promise<SourcePing[]> {
  return async () => {
    const pings: SourcePing[] = [];
    for (const ping of listed) {
      let body: string | null = null;
      if (typeof ping.body_url === "string" && ping.body_url !== "") {
        const answer = await api.get(`/api/v${version}/checks/${uuid}/pings/${ping.n}/body`, MAX_BODY_BYTES);
        if (answer.status === 200) body = Buffer.from(answer.bytes).toString("base64");
        else if (answer.status !== 404) throw new SourceError(`GET the body of ping ${ping.n} answered ${answer.status}`);
      }
      pings.push({
        n: ping.n,
        date: ping.date,
        type: ping.type,
        rid: ping.rid,
        scheme: typeof ping.scheme === "string" ? ping.scheme : "http",
        method: typeof ping.method === "string" ? ping.method : "",
        remote_addr: typeof ping.remote_addr === "string" ? ping.remote_addr : "",
        ua: typeof ping.ua === "string" ? ping.ua : "",
        exitstatus: null,
        body_base64: body,
      });
    }
    return pings;
  };
}

/** A project id for this source and key: a second run without --project finds the project the first made, even an empty one. */
function derivedId(base: string, apiKey: string): string {
  const hex = createHash("sha256").update(`hcd import\n${base}\n${apiKey}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${(8 + (parseInt(hex[16], 16) & 3)).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function errorOf(json: unknown): string {
  const error = (json as { error?: unknown } | undefined)?.error;
  return typeof error === "string" ? error.slice(0, 200) : "";
}
