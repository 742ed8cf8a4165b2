// The plan's changes of one project's checks and maintenance windows (plan.ts; its channels:
// plan-channels.ts, its status pages: plan-status-pages.ts). Each file entry is compared with its match here through the values the server would
// store, so that a file exported from hcd plans no change.
import { canonicalZone } from "../../engine/zones.ts";
import { call } from "../admin-client.ts";
import type { CheckSettings, FileCheck } from "./document.ts";
import { CHECK_SETTING_NAMES, settingsOfFile } from "./document.ts";
import type { LiveCheck } from "./live-state.ts";
import { escalationOfLive, idsOf, settingsOfLive } from "./live-state.ts";
import type { Change, Ids, ProjectContext } from "./plan-model.ts";
import { dropped, matchEntries, PHASE } from "./plan-model.ts";
import type { CheckTarget } from "./plan-check-refs.ts";
import { checkKey, checkTarget, checkUuidAtRun } from "./plan-check-refs.ts";
import type { ChannelTarget } from "./plan-channel-refs.ts";
import { channelIdAtRun, channelKey, channelTarget, escalationTargets, sameSet, sameSteps, stepIdsAtRun } from "./plan-channel-refs.ts";
import { checkBody, maintenanceBody } from "./requests.ts";

const enc = encodeURIComponent;

// ---- checks ----

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
