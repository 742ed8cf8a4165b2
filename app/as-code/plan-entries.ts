// The plan's changes of one project's sections (plan.ts): channels, checks, maintenance windows (status pages:
// plan-status-pages.ts). Each file entry is compared with its match here through the values the server would
// store (a channel's value through the server's own parser), so that a file exported from hcd plans no change.
import type { ServiceKind } from "../../engine/model.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import { canonicalZone } from "../../engine/zones.ts";
import { channelInputOf } from "../../http/admin-input.ts";
import { presentChannelValue } from "../../http/present.ts";
import { SERVICE_KIND_MODULES } from "../../notify/kinds/index.ts";
import { call } from "./admin-client.ts";
import type { CheckSettings, FileChannel, FileCheck } from "./document.ts";
import { CHECK_SETTING_NAMES, settingsOfFile } from "./document.ts";
import type { LiveCheck } from "./live-state.ts";
import { escalationOfLive, idsOf, settingsOfLive } from "./live-state.ts";
import type { Change, Ids, ProjectContext } from "./plan-model.ts";
import { matchEntries, PHASE } from "./plan-model.ts";
import type { ChannelTarget } from "./plan-channel-refs.ts";
import { channelIdAtRun, channelKey, channelTarget, escalationTargets, sameSet, sameSteps, stepIdsAtRun } from "./plan-channel-refs.ts";
import { channelBody, checkBody, maintenanceBody } from "./requests.ts";

const enc = encodeURIComponent;

// ---- channels ----

/** A channel's value as the server would store and show it, or null when the server's parser refuses it. */
function storedValue(kind: string, value: unknown): unknown {
  const parsed = channelInputOf({ kind, name: "", value }, { parse: (k: ServiceKind, v: unknown) => SERVICE_KIND_MODULES[k].parse(v) });
  if (!parsed.ok) return null;
  const form = (SERVICE_KINDS as readonly string[]).includes(kind) ? SERVICE_KIND_MODULES[kind as ServiceKind].form : [];
  return presentChannelValue(parsed.value.value, form);
}

export function channelChanges(context: ProjectContext): Change[] {
  const { file, live, label: projectLabel, ids } = context;
  if (file.channels === undefined) return [];
  const liveChannels = live?.channels ?? [];
  const { matched, left } = matchEntries(
    file.channels,
    liveChannels,
    (c) => c.id,
    (c) => c.id,
    (c) => c.name,
    (c) => c.name,
  );
  for (const [entry, found] of matched) if (found !== null) ids.channels.set(entry, found.id);
  const changes: Change[] = [];
  const membersOf = (entry: FileChannel, where: string) =>
    ((entry.value as { channels?: string[] }).channels ?? [])
      .map((ref) => channelTarget(context, ref, where))
      .filter((t): t is ChannelTarget => t !== null);
  for (const entry of file.channels) {
    const found = matched.get(entry) ?? null;
    const group = entry.kind === "group";
    const label = `channel ${JSON.stringify(entry.name)} (${entry.kind}) in ${projectLabel}`;
    const members = group ? membersOf(entry, label) : [];
    const body = (runIds: Ids) => channelBody(entry, group ? members.map((m) => channelIdAtRun(runIds, m)) : null);
    if (found === null) {
      // made with the file's id when it has one: the next run (here or on the hcd it came from) matches it by id
      const request = (runIds: Ids) => (entry.id === undefined ? body(runIds) : { ...body(runIds), id: entry.id });
      changes.push({
        verb: "create",
        what: "channel",
        label,
        details: entry.needs_settings === true ? ["needs its settings"] : [],
        phase: group ? PHASE.group : PHASE.channel,
        run: async (client, runIds) => {
          const made = (await call(client, "POST", `/admin/v1/projects/${enc(context.projectId())}/channels`, request(runIds))) as {
            id: string;
          };
          runIds.channels.set(entry, made.id);
          return `created ${label} (id ${made.id})`;
        },
      });
      continue;
    }
    if (found.kind !== entry.kind) {
      context.problems.push(
        `${label}: it is a ${found.kind} channel here, and a channel keeps its kind; give the file's entry another name (and --prune the old one)`,
      );
      continue;
    }
    const details: string[] = [];
    if (found.name !== entry.name) details.push(`name ${JSON.stringify(found.name)} → ${JSON.stringify(entry.name)}`);
    if ((found.new_checks ?? true) !== (entry.new_checks ?? true))
      details.push(`new_checks ${found.new_checks ?? true} → ${entry.new_checks ?? true}`);
    if ((found.every_failure ?? false) !== (entry.every_failure ?? false))
      details.push(`every_failure ${found.every_failure ?? false} → ${entry.every_failure ?? false}`);
    // a file that does not know the settings (needs_settings) leaves them as they are here
    const valueDiffers =
      entry.needs_settings === true
        ? false
        : group
          ? !sameSet(
              members.map((m) => channelKey(context, m)),
              idsOf((found.value as { channels?: unknown } | undefined)?.channels),
            )
          : found.needs_settings === true || JSON.stringify(storedValue(entry.kind, entry.value)) !== JSON.stringify(found.value);
    if (valueDiffers) details.push(group ? "members" : "value"); // a value's text is never shown: it may hold a secret
    if (details.length === 0) continue;
    if (entry.needs_settings === true && found.needs_settings === true) {
      context.problems.push(`${label}: it needs its settings here and the file has none: give it a value to rename it`);
      continue;
    }
    // a rename of an entry without settings keeps the value here
    const edit = (runIds: Ids) =>
      entry.needs_settings === true
        ? { name: entry.name, new_checks: entry.new_checks ?? true, every_failure: entry.every_failure ?? false, value: found.value }
        : body(runIds);
    changes.push({
      verb: "update",
      what: "channel",
      label,
      details,
      phase: group ? PHASE.groupUpdate : PHASE.channelUpdate,
      run: async (client, runIds) => {
        await call(client, "PUT", `/admin/v1/projects/${enc(context.projectId())}/channels/${enc(found.id)}`, edit(runIds));
        return `updated ${label}`;
      },
    });
  }
  for (const channel of left)
    changes.push(
      ...dropped(
        context,
        "channel",
        `channel ${JSON.stringify(channel.name)} (${channel.kind})`,
        channel.kind === "group" ? PHASE.groupDelete : PHASE.channelDelete,
        `channels/${enc(channel.id)}`,
      ),
    );
  return changes;
}

/** A live entry the file does not name: deleted with --prune, else listed as kept. */
export function dropped(context: ProjectContext, what: string, name: string, phase: number, path: string): Change[] {
  const label = `${name} in ${context.label}`;
  if (!context.prune) {
    context.unmanaged.push(label);
    return [];
  }
  return [
    {
      verb: "delete",
      what,
      label,
      details: [],
      phase,
      run: async (client) => {
        await call(client, "DELETE", `/admin/v1/projects/${enc(context.projectId())}/${path}`);
        return `deleted ${label}`;
      },
    },
  ];
}

// ---- checks ----

/** Where a file names a check: its entry in the file, or a check here (a section not managed). */
export type CheckTarget = { readonly entry: FileCheck } | { readonly uuid: string };

export function checkTarget(context: ProjectContext, ref: string, where: string): CheckTarget | null {
  const { file, live } = context;
  if (file.checks !== undefined) {
    const entry = file.checks.find((c) => c.uuid === ref) ?? file.checks.find((c) => c.slug === ref && c.slug !== "");
    if (entry !== undefined) return { entry };
  } else {
    const byUuid = (live?.checks ?? []).find((c) => c.uuid === ref);
    if (byUuid !== undefined) return { uuid: byUuid.uuid };
    const bySlug = (live?.checks ?? []).filter((c) => c.slug === ref && ref !== "");
    if (bySlug.length === 1) return { uuid: bySlug[0].uuid };
    if (bySlug.length > 1) {
      context.problems.push(
        `${where}: ${bySlug.length} checks of ${context.label} have the slug ${JSON.stringify(ref)}; name it by its uuid`,
      );
      return null;
    }
  }
  context.problems.push(`${where}: ${context.label} has no check ${JSON.stringify(ref)}`);
  return null;
}

export function checkKey(context: ProjectContext, target: CheckTarget): string {
  if ("uuid" in target) return target.uuid;
  return context.ids.checks.get(target.entry) ?? target.entry.uuid ?? `new:${context.file.checks?.indexOf(target.entry)}`;
}
export function checkUuidAtRun(ids: Ids, target: CheckTarget): string {
  if ("uuid" in target) return target.uuid;
  const uuid = ids.checks.get(target.entry);
  if (uuid === undefined) throw new Error(`check ${JSON.stringify(target.entry.slug ?? "")} was not created`);
  return uuid;
}

function checkName(check: { uuid?: string; slug?: string; name?: string }): string {
  return JSON.stringify(
    check.slug !== undefined && check.slug !== ""
      ? check.slug
      : check.name !== undefined && check.name !== ""
        ? check.name
        : (check.uuid ?? ""),
  );
}

/** The file check's settings with its zone as the server stores it (a legacy name becomes its canonical one). */
function wantedSettings(entry: FileCheck): CheckSettings {
  const settings = settingsOfFile(entry);
  return settings.tz === null ? settings : { ...settings, tz: canonicalZone(settings.tz) ?? settings.tz };
}

export function checkChanges(context: ProjectContext): Change[] {
  const { file, live, label: projectLabel, ids } = context;
  if (file.checks === undefined) return [];
  const liveChecks = live?.checks ?? [];
  const matched = new Map<FileCheck, LiveCheck | null>();
  const taken = new Set<LiveCheck>();
  for (const entry of file.checks) {
    if (entry.uuid === undefined) continue;
    const found = liveChecks.find((c) => c.uuid === entry.uuid) ?? null; // a uuid given is the check's: never matched by slug
    matched.set(entry, found);
    if (found !== null) taken.add(found);
  }
  for (const entry of file.checks) {
    if (matched.has(entry)) continue;
    const bySlug = liveChecks.filter((c) => !taken.has(c) && c.slug === entry.slug);
    if (bySlug.length > 1)
      context.problems.push(
        `check ${checkName(entry)} in ${projectLabel}: ${bySlug.length} checks here have this slug; give the file's entry the uuid of one`,
      );
    matched.set(entry, bySlug.length === 1 ? bySlug[0] : null);
    if (bySlug.length === 1) taken.add(bySlug[0]);
  }
  for (const [entry, found] of matched) if (found !== null) ids.checks.set(entry, found.uuid);

  const creates: { entry: FileCheck; change: Change }[] = [];
  const changes: Change[] = [];
  for (const entry of file.checks) {
    const found = matched.get(entry) ?? null;
    const label = `check ${checkName(entry)} in ${projectLabel}`;
    const channels = (entry.channels ?? []).map((ref) => channelTarget(context, ref, label)).filter((t): t is ChannelTarget => t !== null);
    const dependsOn = (entry.depends_on ?? []).map((ref) => checkTarget(context, ref, label)).filter((t): t is CheckTarget => t !== null);
    const escalation = entry.escalation == null ? null : escalationTargets(context, entry.escalation, `${label}, escalation`);
    const body = (runIds: Ids) =>
      checkBody(entry, {
        channels: channels.map((t) => channelIdAtRun(runIds, t)),
        dependsOn: dependsOn.map((t) => checkUuidAtRun(runIds, t)),
        escalation: escalation === null ? null : stepIdsAtRun(runIds, escalation),
      });
    if (found === null) {
      creates.push({
        entry,
        change: {
          verb: "create",
          what: "check",
          label,
          details: entry.uuid === undefined ? [] : [`uuid ${entry.uuid}`],
          phase: PHASE.checkCreate,
          run: async (client, runIds) => {
            const request = entry.uuid === undefined ? body(runIds) : { ...body(runIds), uuid: entry.uuid };
            const made = (await call(client, "POST", `/admin/v1/projects/${enc(context.projectId())}/checks`, request)) as { uuid: string };
            runIds.checks.set(entry, made.uuid);
            return `created ${label} (uuid ${made.uuid})`;
          },
        },
      });
      continue;
    }
    const details = settingDetails(settingsOfLive(found), wantedSettings(entry));
    const channelKeys = channels.map((t) => channelKey(context, t));
    if (!sameSet(channelKeys, idsOf(found.channels))) details.push("channels");
    const dependencyKeys = dependsOn.map((t) => checkKey(context, t));
    if (!sameSet(dependencyKeys, idsOf(found.depends_on))) details.push("depends_on");
    if (!sameSteps(context, escalation, escalationOfLive(found))) details.push("escalation");
    if (details.length === 0) continue;
    changes.push({
      verb: "update",
      what: "check",
      label,
      details,
      phase: PHASE.checkUpdate,
      run: async (client, runIds) => {
        await call(client, "POST", `/admin/v1/projects/${enc(context.projectId())}/checks/${enc(found.uuid)}`, body(runIds));
        return `updated ${label}`;
      },
    });
  }
  for (const check of liveChecks.filter((c) => !taken.has(c))) {
    changes.push(...dropped(context, "check", `check ${checkName(check)}`, PHASE.checkDelete, `checks/${enc(check.uuid)}`));
  }
  return [...inDependencyOrder(creates, (ref) => checkTargetQuiet(context, ref)), ...changes];
}

function checkTargetQuiet(context: ProjectContext, ref: string): FileCheck | null {
  return context.file.checks?.find((c) => c.uuid === ref) ?? context.file.checks?.find((c) => c.slug === ref && c.slug !== "") ?? null;
}

/** New checks ordered so that each comes after the new checks it depends on (the file has no cycle: read-file.ts). */
function inDependencyOrder(creates: readonly { entry: FileCheck; change: Change }[], find: (ref: string) => FileCheck | null): Change[] {
  const pending = new Map(creates.map((c) => [c.entry, c.change]));
  const ordered: Change[] = [];
  const visit = (entry: FileCheck) => {
    const change = pending.get(entry);
    if (change === undefined) return;
    pending.delete(entry);
    for (const ref of entry.depends_on ?? []) {
      const dependency = find(ref);
      if (dependency !== null) visit(dependency);
    }
    ordered.push(change);
  };
  for (const { entry } of creates) visit(entry);
  return ordered;
}

/** The settings that differ, as "grace 3600 → 300" (long or many-line text only by name). */
function settingDetails(have: CheckSettings, want: CheckSettings): string[] {
  const shown = (value: unknown) => {
    const text = JSON.stringify(value);
    return text.length > 40 || text.includes("\\n") ? null : text;
  };
  const details: string[] = [];
  for (const name of CHECK_SETTING_NAMES) {
    if (JSON.stringify(have[name]) === JSON.stringify(want[name])) continue;
    const [from, to] = [shown(have[name]), shown(want[name])];
    // a push token pings the check, as its uuid does: named, never shown
    details.push(from === null || to === null || name === "push_token" ? name : `${name} ${from} → ${to}`);
  }
  return details;
}

// ---- maintenance windows ----

export function maintenanceChanges(context: ProjectContext): Change[] {
  const { file, live, label: projectLabel } = context;
  if (file.maintenance === undefined) return [];
  const { matched, left } = matchEntries(
    file.maintenance,
    live?.maintenance ?? [],
    (w) => w.id,
    (w) => w.id,
    (w) => w.name,
    (w) => w.name,
  );
  const changes: Change[] = [];
  for (const window of file.maintenance) {
    const found = matched.get(window) ?? null;
    const label = `maintenance window ${JSON.stringify(window.name)} in ${projectLabel}`;
    const body = maintenanceBody(window);
    if (found === null) {
      changes.push({
        verb: "create",
        what: "maintenance window",
        label,
        details: [],
        phase: PHASE.maintenance,
        run: async (client) => {
          const made = (await call(client, "POST", `/admin/v1/projects/${enc(context.projectId())}/maintenance`, body)) as { id: string };
          return `created ${label} (id ${made.id})`;
        },
      });
      continue;
    }
    const want = {
      name: window.name,
      schedule: window.schedule,
      tz: canonicalZone(window.tz ?? "UTC") ?? window.tz,
      duration: window.duration,
    };
    const details = (["name", "schedule", "tz", "duration"] as const)
      .filter((f) => found[f] !== want[f])
      .map((f) => `${f} ${JSON.stringify(found[f])} → ${JSON.stringify(want[f])}`);
    if (details.length === 0) continue;
    changes.push({
      verb: "update",
      what: "maintenance window",
      label,
      details,
      phase: PHASE.maintenance,
      run: async (client) => {
        await call(client, "PUT", `/admin/v1/projects/${enc(context.projectId())}/maintenance/${enc(found.id)}`, body);
        return `updated ${label}`;
      },
    });
  }
  for (const window of left)
    changes.push(
      ...dropped(
        context,
        "maintenance window",
        `maintenance window ${JSON.stringify(window.name)}`,
        PHASE.maintenanceDelete,
        `maintenance/${enc(window.id)}`,
      ),
    );
  return changes;
}
