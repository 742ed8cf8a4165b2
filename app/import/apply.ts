// Writes what an import read (app/import/model.ts) through the admin API, in an order that leaves nothing
// half-made: a project with its keys, its channels (groups last), then each check whole (settings, state
// and flips in one request; its past pings after), then users and their roles. Whatever is there already
// is kept (a check takes the source's settings), so a second run creates nothing new and a run cut short
// is completed by the next. With dryRun nothing is written: the server answers what each step would do.
import type { AdminAnswer, AdminClient } from "../admin-client.ts";
import type { Progress, Source, SourceChannel, SourceCheck, SourcePing, SourceProject, SourceUser, Summary } from "./model.ts";
import { emptySummary } from "./model.ts";

export type ApplyOptions = { readonly dryRun: boolean; readonly progress: Progress };

/** Most pings in one request, and about most bytes of their bodies (base64). */
const PINGS_PER_REQUEST = 500;
const PING_BYTES_PER_REQUEST = 8 * 1024 * 1024;

/** A failure that ends the import: hcd refused the admin token, or answered what it never should. */
export class ImportError extends Error {}

/** Where the project's checks go: its id, whether it is there (made now, or found), its log limit, and whether this run made it. */
type ProjectState = { readonly id: string; readonly exists: boolean; readonly pingLogLimit: number; readonly made: boolean };

export async function applySource(source: Source, admin: AdminClient, options: ApplyOptions): Promise<Summary> {
  const summary = emptySummary();
  summary.skipped.push(...source.skipped);
  const placed: { project: SourceProject; state: ProjectState }[] = [];
  for (const project of source.projects) placed.push({ project, state: await importProject(project, admin, summary, options) });
  await importUsers(source.users, placed, admin, summary, options);
  return summary;
}

async function importProject(project: SourceProject, admin: AdminClient, summary: Summary, options: ApplyOptions): Promise<ProjectState> {
  const state = await placeProject(project, admin, summary, options);
  options.progress(`project "${project.name}" (${state.id}): ${!state.made ? "found" : options.dryRun ? "would be created" : "created"}`);
  const channels = await importChannels(project, state, admin, summary, options);
  let n = 0;
  for (const check of project.checks) {
    n++;
    await importCheck(check, state, channels, admin, summary, options, `${n}/${project.checks.length}`);
  }
  return state;
}

/** Finds the project (by id, or as the one holding its checks) or makes it. */
async function placeProject(project: SourceProject, admin: AdminClient, summary: Summary, options: ApplyOptions): Promise<ProjectState> {
  let id = project.id;
  if (project.findByChecks) {
    for (const check of project.checks) {
      const found = await admin.request("GET", `/admin/v1/checks/${check.uuid}`);
      if (found.status === 200) {
        id = stringField(found, "project");
        break;
      }
      expect(found, [404], `GET /admin/v1/checks/${check.uuid}`);
    }
  }
  const existing = await admin.request("GET", `/admin/v1/projects/${id}`);
  if (existing.status === 200) {
    const pingKey = project.create.ping_key;
    if (typeof pingKey === "string" && pingKey !== stringField(existing, "ping_key")) {
      summary.skipped.push({
        kind: "project",
        name: project.name,
        reason: "it exists in hcd with another ping key, which is kept: slug URLs use that one",
      });
    }
    return { id, exists: true, pingLogLimit: numberField(existing, "ping_log_limit"), made: false };
  }
  expect(existing, [404], `GET /admin/v1/projects/${id}`);
  if (project.mustExist) throw new ImportError(`hcd has no project ${id}`);
  summary.projects++;
  const limit = typeof project.create.ping_log_limit === "number" ? project.create.ping_log_limit : 100;
  if (options.dryRun) return { id, exists: false, pingLogLimit: limit, made: true };
  const made = await admin.request("POST", "/admin/v1/projects", { ...project.create, id });
  if (made.status === 409 && /API key/.test(errorOf(made))) {
    // the source's key is another hcd project's: this one gets new keys
    summary.skipped.push({
      kind: "project",
      name: project.name,
      reason: `its API keys are another hcd project's: it gets new ones (${errorOf(made)})`,
    });
    const { api_key: _rw, api_key_readonly: _ro, hashed_api_keys: _hashed, ...rest } = project.create;
    expect(await admin.request("POST", "/admin/v1/projects", { ...rest, id }), [201], "POST /admin/v1/projects");
  } else {
    expect(made, [201], "POST /admin/v1/projects");
  }
  return { id, exists: true, pingLogLimit: limit, made: true };
}

/** Makes the channels hcd has not got yet; returns the ids the project now has of the source's. */
async function importChannels(
  project: SourceProject,
  state: ProjectState,
  admin: AdminClient,
  summary: Summary,
  options: ApplyOptions,
): Promise<Set<string>> {
  const there = new Set<string>();
  if (state.exists) {
    const listed = await admin.request("GET", `/admin/v1/projects/${state.id}/channels`);
    if (listed.status === 200) for (const channel of arrayField(listed, "channels")) there.add(String((channel as { id?: unknown }).id));
    else if (!options.dryRun) expect(listed, [200], `GET /admin/v1/projects/${state.id}/channels`);
  }
  const available = new Set<string>();
  // a group names its members: they go first
  const ordered = [...project.channels.filter((c) => c.kind !== "group"), ...project.channels.filter((c) => c.kind === "group")];
  for (const channel of ordered) {
    const label = `${channel.kind} "${channel.name}"`;
    if (there.has(channel.id)) {
      available.add(channel.id);
      continue;
    }
    const value = channel.kind === "group" ? groupOf(channel, available) : channel.value;
    if (channel.kind === "group" && value === undefined && channel.value !== undefined) {
      summary.skipped.push({ kind: "channel", name: label, reason: "none of its members was brought over" });
      continue;
    }
    for (const note of channel.notes) summary.skipped.push({ kind: "channel", name: label, reason: note });
    if (options.dryRun) {
      summary.channels++;
      available.add(channel.id);
      continue;
    }
    const path = `/admin/v1/projects/${state.id}/channels`;
    const base = { id: channel.id, kind: channel.kind, name: channel.name };
    let made = await admin.request("POST", path, value === undefined ? { ...base, needs_settings: true } : { ...base, value });
    if (made.status === 400 && value !== undefined && !/^json validation error: kind /.test(errorOf(made))) {
      // hcd refuses its settings (a kind this server does not offer, a value it does not take): a stub keeps its assignments
      summary.skipped.push({
        kind: "channel",
        name: label,
        reason: `its settings are not kept (${errorOf(made)}): it needs them given again`,
      });
      made = await admin.request("POST", path, { ...base, needs_settings: true });
    }
    if (made.status === 400) {
      summary.skipped.push({
        kind: "channel",
        name: label,
        reason: `hcd does not take it (${errorOf(made)}); its checks are not assigned to it`,
      });
      continue;
    }
    expect(made, [201, 409], `POST ${path}`);
    if (made.status === 201) summary.channels++;
    available.add(channel.id);
  }
  options.progress(`project "${project.name}": ${available.size} of ${project.channels.length} integrations there`);
  return available;
}

/** A group's value with only the members brought over; undefined when none is. */
function groupOf(channel: SourceChannel, available: ReadonlySet<string>): unknown {
  const members = (channel.value as { channels?: unknown } | undefined)?.channels;
  if (!Array.isArray(members)) return undefined;
  const kept = members.filter((id): id is string => typeof id === "string" && available.has(id));
  return kept.length === 0 ? undefined : { channels: kept };
}

async function importCheck(
  check: SourceCheck,
  state: ProjectState,
  channels: ReadonlySet<string>,
  admin: AdminClient,
  summary: Summary,
  options: ApplyOptions,
  nth: string,
): Promise<void> {
  const name = check.name === "" ? check.uuid : check.name;
  for (const note of check.notes) summary.skipped.push({ kind: "check", name, reason: note });
  const body: Record<string, unknown> = { ...check.body, channels: check.channels.filter((id) => channels.has(id)).join(",") };
  const flips = Array.isArray(body.flips) ? body.flips.length : 0;
  let result: string;
  if (options.dryRun && !state.exists) {
    result = "created";
  } else {
    const path = `/admin/v1/projects/${state.id}/checks/${check.uuid}`;
    const put = await admin.request("PUT", path, options.dryRun ? { ...body, dry_run: true } : body);
    if (put.status === 400 || put.status === 403 || put.status === 409) {
      summary.skipped.push({ kind: "check", name, reason: errorOf(put) });
      options.progress(`check ${nth} "${name}": skipped (${errorOf(put)})`);
      return;
    }
    expect(put, [200, 201], `PUT ${path}`);
    result = stringField(put, "result");
  }
  if (result === "created") summary.flips += flips;
  if (result !== "unchanged") summary.checks++;
  const added = check.pings === null ? 0 : await importPings(check, name, state, result, admin, summary, options);
  options.progress(
    `check ${nth} "${name}": ${result}${check.pings === null ? "" : `, ${added} pings`}${result === "created" && flips > 0 ? `, ${flips} flips` : ""}`,
  );
}

/** Sends the check's past pings the log does not hold yet, newest first, a bounded request at a time; returns how many were added. */
async function importPings(
  check: SourceCheck,
  name: string,
  state: ProjectState,
  result: string,
  admin: AdminClient,
  summary: Summary,
  options: ApplyOptions,
): Promise<number> {
  let pings: readonly SourcePing[];
  try {
    pings = await check.pings!();
  } catch (error) {
    summary.skipped.push({
      kind: "pings",
      name,
      reason: `its pings could not be read: ${error instanceof Error ? error.message : String(error)}`,
    });
    return 0;
  }
  if (options.dryRun && (!state.exists || result === "created")) {
    const counted = Math.min(pings.length, state.pingLogLimit);
    summary.pings += counted;
    return counted;
  }
  let added = 0;
  for (const batch of batchesOf(pings)) {
    const path = `/admin/v1/projects/${state.id}/checks/${check.uuid}/pings`;
    const posted = await admin.request("POST", path, options.dryRun ? { pings: batch, dry_run: true } : { pings: batch });
    if (posted.status === 400) {
      summary.skipped.push({ kind: "pings", name, reason: errorOf(posted) });
      continue;
    }
    expect(posted, [200], `POST ${path}`);
    added += numberField(posted, "added");
  }
  summary.pings += added;
  return added;
}

function batchesOf(pings: readonly SourcePing[]): SourcePing[][] {
  const batches: SourcePing[][] = [];
  let batch: SourcePing[] = [],
    bytes = 0;
  for (const ping of pings) {
    const size = typeof ping.body_base64 === "string" ? ping.body_base64.length : 0;
    if (batch.length > 0 && (batch.length >= PINGS_PER_REQUEST || bytes + size > PING_BYTES_PER_REQUEST)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(ping);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** Makes the users hcd has not got (matched by email) and gives each the roles they had where hcd gives them none yet. */
async function importUsers(
  users: readonly SourceUser[],
  placed: readonly { project: SourceProject; state: ProjectState }[],
  admin: AdminClient,
  summary: Summary,
  options: ApplyOptions,
): Promise<void> {
  if (users.length === 0 && placed.every(({ project }) => project.members.length === 0)) return;
  const listed = await admin.request("GET", "/admin/v1/users");
  expect(listed, [200], "GET /admin/v1/users");
  const ids = new Map<string, string>();
  for (const user of arrayField(listed, "users")) {
    const { id, email } = user as { id?: unknown; email?: unknown };
    if (typeof id === "string" && typeof email === "string") ids.set(email.toLowerCase(), id);
  }
  const changed = new Set<string>();
  for (const user of users) {
    const email = user.email.toLowerCase();
    if (ids.has(email)) continue;
    if (options.dryRun) {
      changed.add(email);
      ids.set(email, "");
      continue;
    }
    const made = await admin.request("POST", "/admin/v1/users", { email: user.email, password_hash: user.passwordHash });
    if (made.status === 400) {
      summary.skipped.push({ kind: "user", name: user.email, reason: errorOf(made) });
      continue;
    }
    expect(made, [201], "POST /admin/v1/users");
    ids.set(email, stringField(made, "id"));
    changed.add(email);
  }
  for (const { project, state } of placed) {
    const roles = new Map<string, string>();
    if (state.exists) {
      const members = await admin.request("GET", `/admin/v1/projects/${state.id}/members`);
      if (members.status === 200) {
        for (const member of arrayField(members, "members")) {
          const { id, role } = member as { id?: unknown; role?: unknown };
          if (typeof id === "string" && typeof role === "string") roles.set(id, role);
        }
      } else if (!options.dryRun) expect(members, [200], `GET /admin/v1/projects/${state.id}/members`);
    }
    for (const member of project.members) {
      const email = member.email.toLowerCase();
      const id = ids.get(email);
      if (id === undefined) continue; // not brought over (listed in skipped)
      if (id !== "" && roles.has(id)) continue; // hcd's role is kept
      changed.add(email);
      if (options.dryRun) continue;
      expect(
        await admin.request("PUT", `/admin/v1/projects/${state.id}/members/${id}`, { role: member.role }),
        [200],
        "PUT /admin/v1/projects/<id>/members/<user>",
      );
    }
  }
  summary.users += changed.size;
  options.progress(`users: ${changed.size} ${options.dryRun ? "would be " : ""}created or given roles`);
}

function expect(answer: AdminAnswer, statuses: readonly number[], what: string): void {
  if (statuses.includes(answer.status)) return;
  if (answer.status === 401) throw new ImportError(`hcd refused the admin token (${what}): ${errorOf(answer)}`);
  throw new ImportError(`hcd answered ${what} with ${answer.status}: ${errorOf(answer)}`);
}

function errorOf(answer: AdminAnswer): string {
  const error = (answer.json as { error?: unknown } | null)?.error;
  return typeof error === "string" ? error : `status ${answer.status}`;
}

function stringField(answer: AdminAnswer, field: string): string {
  const value = (answer.json as Record<string, unknown> | null)?.[field];
  if (typeof value !== "string") throw new ImportError(`hcd's answer has no ${field}`);
  return value;
}

function numberField(answer: AdminAnswer, field: string): number {
  const value = (answer.json as Record<string, unknown> | null)?.[field];
  if (typeof value !== "number") throw new ImportError(`hcd's answer has no ${field}`);
  return value;
}

function arrayField(answer: AdminAnswer, field: string): unknown[] {
  const value = (answer.json as Record<string, unknown> | null)?.[field];
  if (!Array.isArray(value)) throw new ImportError(`hcd's answer has no ${field} list`);
  return value;
}
