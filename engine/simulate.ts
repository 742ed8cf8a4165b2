// What-if replay of one check's history: its logged pings run through a fresh in-memory Shard on a
// virtual clock with candidate settings (timeout, grace, schedule + tz, failure threshold, the run rules,
// an escalation policy),
// under the project's recurring maintenance windows, which decide which notifications would have gone out.
// Pure: it reads no clock and touches nothing the live check owns; the caller passes the log and the instants.
import type { OutboxEntry } from "./changes.ts";
import type { Channel, Check, CheckSpec, EscalationStep, Flip, Millis, PingKind, PingSignal, Project } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { ok } from "./outcome.ts";
import { Shard } from "./shard.ts";

/** One entry of the check's ping log as the simulation needs it; bodies only where keyword rules read them. */
export type LoggedPing = {
  readonly at: Millis;
  readonly kind: PingKind; // as stored; HTTP pings are classified again under the simulated check
  readonly scheme: string;
  readonly method: string;
  readonly rid: string | null;
  readonly exitStatus: number | null;
  readonly body: Uint8Array | null;
  /** Email pings: the decoded subject and text, when the check's email keyword rules need them. */
  readonly email?: { readonly subject: string; readonly text: string };
};

/** Candidate settings; what is left out keeps the check's own value. */
export type SimulationSettings = {
  readonly timeoutMs?: Millis;
  readonly graceMs?: Millis;
  readonly schedule?: string;
  readonly tz?: string;
  readonly failureThreshold?: number;
  readonly maxDurationMs?: Millis; // 0 = off
  readonly minDurationMs?: Millis; // 0 = off
  readonly alertOnOverlap?: boolean;
  readonly maxRunsPerPeriod?: number; // 0 = off
  /** When each escalation step comes ([] = none, null = the project's); its integrations are the counted one. */
  readonly escalation?: readonly { readonly afterMs: Millis }[] | null;
};

export type SimulatedFlip = { readonly at: Millis; readonly up: 0 | 1 };

/**
 * The notifications the simulated check would have sent to an integration: down ones (at the change, or
 * at the end of the maintenance window that held them while the check was still down), up ones, reminders
 * (the check's reminder interval), the down changes whose notification a window held at that instant, and
 * the escalation steps reached.
 */
export type SimulatedNotifications = {
  readonly down: number;
  readonly up: number;
  readonly reminders: number;
  readonly held: number;
  readonly escalations: number;
};

export type Simulation = {
  readonly flips: SimulatedFlip[]; // oldest first
  readonly downCount: number;
  readonly downtimeMs: Millis;
  readonly notifications: SimulatedNotifications;
};

/** The one integration of the simulated project: its queued notifications are counted, never sent. */
const COUNTED_CHANNEL = "00000000-0000-4000-8000-00000000c0de";

/** A logged pause (paused: true) or resume (paused: false) of the check, from its flips. */
export type LoggedPause = { readonly at: Millis; readonly paused: boolean };

export type SimulationInput = {
  readonly check: Check; // the live check: its rules and own settings (its state is not used)
  readonly project: Project;
  readonly pings: readonly LoggedPing[]; // any order
  readonly pauses: readonly LoggedPause[]; // any order
  readonly settings: SimulationSettings;
  readonly sinceAt: Millis;
  readonly untilAt: Millis;
};

/**
 * Returns the flips the check would have had between `sinceAt` and `untilAt` with `settings`: the check
 * starts as new at `sinceAt` (as if created then), every logged ping, pause and resume in [sinceAt, untilAt]
 * is applied at its own instant, and every deadline up to `untilAt` fires at its due time. O(n log n) in
 * the entries given (one sort), and linear in memory.
 */
export function simulate(input: SimulationInput): Outcome<Simulation> {
  const { project, sinceAt, untilAt } = input;
  let n = 0;
  const shard = new Shard({ newId: () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, "0")}`, now: sinceAt });
  // a copy of the project with its recurring windows but not its one-off mute (an instant set at some
  // time, not a rule of the past), and one channel of its own: what would be queued to it is counted
  const { mutedUntilAt: _mute, escalation: policy, ...rules } = project;
  const counted: Channel = {
    id: COUNTED_CHANNEL,
    projectId: project.id,
    name: "",
    kind: "email",
    value: { kind: "email", address: "" },
    createdAt: sinceAt,
  };
  shard.load(
    policy === undefined ? { ...rules, checkLimit: 1 } : { ...rules, checkLimit: 1, escalation: countedPolicy(policy) },
    [counted],
    [],
  );
  const spec: CheckSpec = {
    ...simulatedSpec(input.check, input.settings),
    reminderIntervalMs: input.check.reminderIntervalMs ?? 0,
    channels: { refs: [COUNTED_CHANNEL] },
  };
  const created = shard.apply({ kind: "createCheck", projectId: project.id, spec, unique: [], at: sinceAt });
  if (!created.ok) return created;
  const uuid = created.value.check.uuid;
  const inWindow = (entry: { readonly at: Millis }) => entry.at >= sinceAt && entry.at <= untilAt;
  const entries: (LoggedPing | LoggedPause)[] = [...input.pauses.filter(inWindow), ...input.pings.filter(inWindow)];
  entries.sort((a, b) => a.at - b.at); // stable: at the same instant a pause or resume goes first
  const flips: { at: Millis; to: string }[] = [];
  const sent = { down: 0, up: 0, reminders: 0, atChange: 0, escalations: 0 };
  let downsToNotify = 0; // down changes whose notification goes out unless a window holds it
  for (const entry of entries) {
    if ("paused" in entry) {
      // a resume of a check the simulation has not paused (it was paused before `since`) is a no-op
      shard.apply({ kind: entry.paused ? "pauseCheck" : "resumeCheck", projectId: project.id, uuid, at: entry.at });
    } else {
      const pinged = shard.apply({
        kind: "ping",
        ping: {
          target: { uuid },
          signal: signalOf(entry.kind),
          exitStatus: entry.exitStatus,
          method: entry.method,
          scheme: entry.scheme,
          remoteAddr: "",
          ua: "",
          rid: entry.rid,
          body: entry.body,
          ...(entry.email ? { email: entry.email } : {}),
          at: entry.at,
        },
      });
      if (!pinged.ok) return pinged;
    }
    take(shard.takeChanges()); // taken as they come: memory stays flat
  }
  shard.apply({ kind: "advance", at: untilAt });
  take(shard.takeChanges());
  const notifications = {
    down: sent.down,
    up: sent.up,
    reminders: sent.reminders,
    held: Math.max(0, downsToNotify - sent.atChange),
    escalations: sent.escalations,
  };
  return ok({ ...summarize(flips, untilAt), notifications });

  function take(changes: { readonly flips: readonly Flip[]; readonly outbox: readonly OutboxEntry[] }): void {
    for (const flip of changes.flips) {
      flips.push(flip);
      if (flip.to === "down" && flip.notify) downsToNotify++;
    }
    for (const entry of changes.outbox) countNotification(sent, entry);
  }
}

/** Counts one queued notification: a reminder, an up, or a down one (at its change, or held and sent later). */
function countNotification(
  sent: { down: number; up: number; reminders: number; atChange: number; escalations: number },
  entry: OutboxEntry,
): void {
  if (entry.escalation !== undefined) sent.escalations++;
  else if (entry.reminder !== undefined) sent.reminders++;
  else if (entry.flip.to === "up") sent.up++;
  else if (entry.flip.to === "down") {
    sent.down++;
    if (entry.flip.from !== "down") sent.atChange++; // a held one is sent later as the down state at that instant
  }
}

/** Returns the count of down flips and the time spent down up to `untilAt`. */
function summarize(flips: readonly { at: Millis; to: string }[], untilAt: Millis): Omit<Simulation, "notifications"> {
  let downCount = 0;
  let downtimeMs = 0;
  let downSince: Millis | null = null;
  for (const flip of flips) {
    if (downSince !== null) downtimeMs += flip.at - downSince;
    downSince = flip.to === "down" ? flip.at : null;
    if (flip.to === "down") downCount++;
  }
  if (downSince !== null) downtimeMs += Math.max(0, untilAt - downSince);
  return { flips: flips.map((f) => ({ at: f.at, up: f.to === "up" ? 1 : 0 })), downCount, downtimeMs };
}

/** The URL signal a stored kind is replayed with; "ign" replays as a neutral log entry. */
function signalOf(kind: PingKind): PingSignal {
  return kind === "ign" ? "log" : kind;
}

/** Returns the spec of a fresh check with the live check's rules and the candidate settings on top (update semantics). */
export function simulatedSpec(check: Check, settings: SimulationSettings): CheckSpec {
  // as an update: a schedule makes it a cron/OnCalendar check, a timeout alone a simple one
  const period: CheckSpec =
    settings.schedule !== undefined
      ? { schedule: settings.schedule }
      : settings.timeoutMs !== undefined
        ? { timeoutMs: settings.timeoutMs }
        : check.kind === "simple"
          ? { timeoutMs: check.timeoutMs }
          : { schedule: check.schedule };
  const spec: CheckSpec = {
    ...period,
    graceMs: settings.graceMs ?? check.graceMs,
    tz: settings.tz ?? check.tz,
    manualResume: check.manualResume,
    methods: check.methods,
    startKw: check.startKw,
    successKw: check.successKw,
    failureKw: check.failureKw,
    filterSubject: check.filterSubject,
    filterBody: check.filterBody,
    filterHttpBody: check.filterHttpBody,
    filterDefaultFail: check.filterDefaultFail,
    failureThreshold: settings.failureThreshold ?? check.failureThreshold ?? 1,
    maxDurationMs: settings.maxDurationMs ?? check.maxDurationMs ?? 0,
    minDurationMs: settings.minDurationMs ?? check.minDurationMs ?? 0,
    alertOnOverlap: settings.alertOnOverlap ?? check.alertOnOverlap ?? false,
    maxRunsPerPeriod: settings.maxRunsPerPeriod ?? check.maxRunsPerPeriod ?? 0,
  };
  // the steps notify the counted integration (the check's own ones are the live project's)
  const steps = settings.escalation !== undefined ? settings.escalation : (check.escalation ?? null);
  return steps === null
    ? spec
    : { ...spec, escalation: steps.map((step) => ({ afterMs: step.afterMs, channels: { refs: [COUNTED_CHANNEL] } })) };
}

/** A policy whose steps notify the counted integration instead of the live project's. */
function countedPolicy(policy: readonly EscalationStep[]): EscalationStep[] {
  return policy.map((step) => ({ afterMs: step.afterMs, channels: [COUNTED_CHANNEL] }));
}
