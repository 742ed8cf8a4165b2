// Checks brought over from another instance (Healthchecks, or another hcd): a check made whole at once with
// its own uuid, settings, state and past flips, its past pings added after; the rules the shard and the
// admin API's dry run share.
import type { Check, CheckSpec, Flip, FlipReason, Millis, PingRecord, Status } from "./model.ts";
import { checkWith, freshCheck } from "./model.ts";
import { applySpec } from "./transition.ts";

/** The state a check had where it comes from. */
export type ImportedState = {
  readonly status: Status;
  readonly nPings: number;
  readonly lastPingAt: Millis | null;
  readonly lastStartAt: Millis | null;
  readonly lastStartRid: string | null;
  readonly lastDurationMs: Millis | null;
  readonly createdAt: Millis;
};

/** A past status change, oldest first in a CheckImport; numbered 1.. in that order when the check is made. */
export type ImportedFlip = { readonly at: Millis; readonly from: Status; readonly to: Status; readonly reason: FlipReason };

/** A check to bring over: its ids, its settings (validated as the API's), its state and its past flips. */
export type CheckImport = {
  readonly uuid: string;
  readonly badgeKey: string;
  readonly spec: CheckSpec;
  readonly state: ImportedState;
  readonly flips: readonly ImportedFlip[];
};

/** What importing a check did: made it, brought its settings up to date, or found it as it is. */
export type ImportResult = "created" | "updated" | "unchanged";

/** A past ping: its record as the log keeps it (n, instant, kind...) and its body. */
export type ImportedPing = { readonly record: PingRecord; readonly body: Uint8Array | null };

/** Returns the new check of `projectId` that `imported` describes (channels already resolved to ids) and its flips, numbered. */
export function importedCheckOf(
  projectId: string,
  imported: CheckImport,
  channelIds: readonly string[] | undefined,
): { check: Check; flips: Flip[] } {
  const { uuid, badgeKey, state } = imported;
  const flips = imported.flips.map((flip, i): Flip => ({
    checkUuid: uuid,
    n: i + 1,
    at: flip.at,
    from: flip.from,
    to: flip.to,
    reason: flip.reason,
    notify: false,
  }));
  const settled = applySpec(
    freshCheck({ uuid, badgeKey, projectId }, state.createdAt),
    { ...imported.spec, dependsOn: undefined },
    { channelIds },
  );
  const check = checkWith(settled, {
    status: state.status,
    nPings: state.nPings,
    nFlips: flips.length,
    lastPingAt: state.lastPingAt,
    lastStartAt: state.lastStartAt,
    // Healthchecks keeps a finished run's id: here a run id is the open run's only
    lastStartRid: state.lastStartAt === null ? null : state.lastStartRid,
    lastDurationMs: state.lastDurationMs,
  });
  return { check, flips };
}

/**
 * Returns what importing `imported` does to `existing` (null: no such check): a check already there keeps
 * its state and history, and takes the imported settings when they differ.
 */
export function importResultOf(existing: Check | null, imported: CheckImport, channelIds: readonly string[] | undefined): ImportResult {
  if (existing === null) return "created";
  return sameSettings(existing, applySpec(existing, { ...imported.spec, dependsOn: undefined }, { channelIds })) ? "unchanged" : "updated";
}

const SETTINGS = [
  "name",
  "slug",
  "tags",
  "desc",
  "kind",
  "timeoutMs",
  "graceMs",
  "schedule",
  "tz",
  "manualResume",
  "methods",
  "startKw",
  "successKw",
  "failureKw",
  "filterSubject",
  "filterBody",
  "filterHttpBody",
  "filterDefaultFail",
  "failureThreshold",
  "reminderIntervalMs",
  "mutedUntilAt",
  "maxDurationMs",
] as const satisfies readonly (keyof Check)[];

/** True when the two records have the same settings (the fields an import brings, channels included). */
export function sameSettings(a: Check, b: Check): boolean {
  return (
    SETTINGS.every((field) => (a[field] ?? null) === (b[field] ?? null)) &&
    a.channels.length === b.channels.length &&
    a.channels.every((id, i) => id === b.channels[i])
  );
}

/** Returns why a state cannot be a check's, or null when it can. */
export function stateProblem(state: ImportedState): string | null {
  if (state.status === "up" && state.lastPingAt === null) return "a check that is up has a last ping";
  return null;
}
