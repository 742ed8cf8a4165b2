// The Healthchecks v3.13 fixture (shared/fixtures/healthchecks beside the repository: a real database, its
// keys, and its API's recorded answers) and the comparison of an hcd's API answers with those recordings,
// the oracle of every import test: what hcd answers about an imported check is what Healthchecks answered.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export type FixtureCheck = {
  name: string;
  slug: string;
  uuid: string;
  kind: string;
  status_in_db: string;
  channels: string[];
  badge_key: string;
};
export type FixtureChannel = { code: string; kind: string; name: string; value: string };
export type FixtureProject = {
  name: string;
  code: string;
  owner: string;
  members: { email: string; role: string }[];
  ping_key: string;
  api_key_rw: string;
  api_key_ro: string;
  db_api_key: string;
  db_api_key_readonly: string;
  checks: FixtureCheck[];
  channels: FixtureChannel[];
};
export type FixtureKeys = {
  secret_key: string;
  users: { email: string; password: string; superuser: boolean }[];
  projects: FixtureProject[];
};

/** The fixture's folder: test/fixtures/healthchecks in the repository (a copy), else shared/fixtures/healthchecks beside it; null when absent. */
export function fixtureDir(): string | null {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    for (const found of [join(dir, "test", "fixtures", "healthchecks"), join(dir, "shared", "fixtures", "healthchecks")]) {
      if (existsSync(join(found, "keys.json"))) return found;
    }
  }
  return null;
}

/** The fixture's folder, or null after one SKIP line (a failure under HCD_REQUIRE_EXTRAS=1, as CI runs). */
export function requireFixture(purpose: string): string | null {
  const dir = fixtureDir();
  if (dir !== null) return dir;
  if (process.env.HCD_REQUIRE_EXTRAS === "1") throw new Error(`shared/fixtures/healthchecks not found (needed for ${purpose})`);
  console.log(`SKIP: ${purpose}: shared/fixtures/healthchecks not found beside the repository`);
  return null;
}

export function fixtureKeys(dir: string): FixtureKeys {
  return JSON.parse(readFileSync(join(dir, "keys.json"), "utf8")) as FixtureKeys;
}

/** A recorded answer of the fixture's API (api/<file>), parsed. */
export function recorded<T = Record<string, unknown>>(dir: string, file: string): T {
  return JSON.parse(readFileSync(join(dir, "api", file), "utf8")) as T;
}

type Json = Record<string, unknown>;

/** The fields of a check that an import keeps and both APIs show alike. */
const KEPT = [
  "name",
  "slug",
  "tags",
  "desc",
  "grace",
  "timeout",
  "schedule",
  "tz",
  "manual_resume",
  "methods",
  "start_kw",
  "success_kw",
  "failure_kw",
  "filter_subject",
  "filter_body",
  "filter_http_body",
  "filter_default_fail",
  "n_pings",
  "last_ping",
  "last_duration",
  "started",
] as const;

/**
 * The differences between what hcd at `url` answers (with `key`) about project `p` ("p1", "p2") and what Healthchecks answered:
 * each check's kept fields, badge key, channels and status (recorded later statuses move: only new and paused are compared),
 * its ping log (type, date to the millisecond, n, scheme, address, method, user agent, run id, duration) and its flips.
 * `history` false: pings and flips are not compared. Returns "" when they agree.
 */
export async function differencesFromRecordings(
  dir: string,
  p: "p1" | "p2",
  url: string,
  key: string,
  opts: { history: boolean; bodies?: boolean },
): Promise<string> {
  const problems: string[] = [];
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { "x-api-key": key } });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Json>;
  };
  const theirs = recorded<{ checks: Json[] }>(dir, `${p}/v3/checks.rw.json`).checks;
  const ours = (await get("/api/v3/checks/")).checks as Json[];
  if (ours.length !== theirs.length) problems.push(`${ours.length} checks, not ${theirs.length}`);
  for (const expected of theirs) {
    const uuid = expected.uuid as string;
    const actual = ours.find((c) => c.uuid === uuid);
    if (actual === undefined) {
      problems.push(`no check ${uuid} (${String(expected.name)})`);
      continue;
    }
    for (const field of KEPT) {
      if (JSON.stringify(actual[field]) !== JSON.stringify(expected[field]))
        problems.push(`${String(expected.name)}: ${field} ${JSON.stringify(actual[field])}, not ${JSON.stringify(expected[field])}`);
    }
    const badge = (u: unknown) => String(u).split("/").pop();
    if (badge(actual.badge_url) !== badge(expected.badge_url))
      problems.push(`${String(expected.name)}: badge ${badge(actual.badge_url)}, not ${badge(expected.badge_url)}`);
    const sorted = (c: unknown) =>
      String(c)
        .split(",")
        .filter((x) => x !== "")
        .sort()
        .join(",");
    if (sorted(actual.channels) !== sorted(expected.channels))
      problems.push(`${String(expected.name)}: channels ${String(actual.channels)}, not ${String(expected.channels)}`);
    if ((expected.status === "paused" || (expected.status === "new" && expected.started === false)) && actual.status !== expected.status)
      problems.push(`${String(expected.name)}: status ${String(actual.status)}, not ${String(expected.status)}`);
    if (!opts.history) continue;
    const theirPings = recorded<{ pings: Json[] }>(dir, `${p}/v3/checks/${uuid}.pings.json`).pings;
    const ourPings = (await get(`/api/v3/checks/${uuid}/pings/`)).pings as Json[];
    // hcd keeps instants to the millisecond and shows durations to the hundredth of a second
    // (bodies false: which pings have a body is not compared, where the source could not give them all)
    const ping = (x: Json) =>
      JSON.stringify([
        x.type,
        Date.parse(String(x.date)),
        x.n,
        x.scheme,
        x.remote_addr,
        x.method,
        x.ua,
        x.rid,
        opts.bodies === false || x.body_url === null,
      ]);
    const a = ourPings.map(ping).join("\n"),
      b = theirPings.map(ping).join("\n");
    if (a !== b) problems.push(`${String(expected.name)}: pings\n${a}\nnot\n${b}`);
    const durations = (list: Json[]) => list.map((x) => (typeof x.duration === "number" ? x.duration : null));
    const [ourDurations, theirDurations] = [durations(ourPings), durations(theirPings)];
    if (
      ourDurations.some((d, i) => (d === null) !== (theirDurations[i] === null) || Math.abs((d ?? 0) - (theirDurations[i] ?? 0)) > 0.011)
    ) {
      problems.push(`${String(expected.name)}: durations ${JSON.stringify(ourDurations)}, not ${JSON.stringify(theirDurations)}`);
    }
    const theirFlips = recorded<{ flips: Json[] }>(dir, `${p}/v3/checks/${uuid}.flips.json`).flips;
    // hcd answers a bare list (a project decision); flips after the recordings are hcd judging the checks since
    const recordedUntil = newestRecorded(dir);
    const ourFlips = ((await get(`/api/v3/checks/${uuid}/flips/`)) as unknown as Json[]).filter(
      (flip) => Date.parse(String(flip.timestamp)) <= recordedUntil,
    );
    if (JSON.stringify(ourFlips) !== JSON.stringify(theirFlips))
      problems.push(`${String(expected.name)}: flips ${JSON.stringify(ourFlips)}, not ${JSON.stringify(theirFlips)}`);
  }
  return problems.join("\n");
}

/** The newest instant of any recorded ping or flip (the recordings were made just after it). */
function newestRecorded(dir: string): number {
  let newest = 0;
  for (const p of ["p1", "p2"]) {
    for (const check of recorded<{ checks: Json[] }>(dir, `${p}/v3/checks.rw.json`).checks) {
      for (const ping of recorded<{ pings: Json[] }>(dir, `${p}/v3/checks/${String(check.uuid)}.pings.json`).pings)
        newest = Math.max(newest, Date.parse(String(ping.date)));
      for (const flip of recorded<{ flips: Json[] }>(dir, `${p}/v3/checks/${String(check.uuid)}.flips.json`).flips)
        newest = Math.max(newest, Date.parse(String(flip.timestamp)));
    }
  }
  return newest;
}
