// Exact replay of a scenario: timed commands on a fresh in-memory Shard whose clock moves only with them.
// Pure and deterministic: ids come from a counter, every command carries its instant, and before each
// command every deadline due by its instant fires at its own due time, as a running server's clock would.
import type { OutboxEntry } from "./changes.ts";
import type {
  ChannelKind,
  ChannelValue,
  CheckSpec,
  EscalationSpecStep,
  Flip,
  MaintenanceWindow,
  Millis,
  PingRecord,
  PingSignal,
  Project,
} from "./model.ts";
import type { Failure } from "./outcome.ts";
import { Shard } from "./shard.ts";
import type { ShardSnapshot } from "./shard-state.ts";

/** A check is named by the scenario's own label; its uuid is assigned when it is created. */
export type ReplayCommand = { readonly at: Millis } & (
  | {
      readonly command: "channel";
      readonly channel: {
        readonly kind: ChannelKind;
        readonly name: string;
        readonly value: ChannelValue;
        readonly everyFailure?: boolean;
      };
    }
  | { readonly command: "create"; readonly check: string; readonly spec: CheckSpec }
  | { readonly command: "update"; readonly check: string; readonly spec: CheckSpec }
  | { readonly command: "ping"; readonly check: string; readonly ping: ReplayPing }
  | { readonly command: "pause" | "resume" | "acknowledge"; readonly check: string }
  /** A recurring maintenance window of the scenario's project (CONTRACT "Alerting, second part"). */
  | { readonly command: "maintenance"; readonly window: Omit<MaintenanceWindow, "id" | "createdAt"> }
  /** The escalation policy of the scenario's project (CONTRACT "Alerting, third part"). */
  | { readonly command: "escalation"; readonly steps: readonly EscalationSpecStep[] }
  | { readonly command: "advance" }
);

export type ReplayPing = {
  readonly signal: PingSignal;
  readonly exitStatus: number | null;
  readonly rid: string | null;
  readonly method: string;
  readonly body: Uint8Array | null;
  readonly email?: { readonly subject: string; readonly text: string };
};

export type ReplayScenario = {
  readonly startAt: Millis;
  readonly project: { readonly name: string; readonly checkLimit: number; readonly pingLogLimit: number; readonly pingBodyLimit: number };
  readonly commands: readonly ReplayCommand[];
};

/** What a replay reports, in the order it happened. */
export type ReplayEvent =
  | { readonly event: "flip"; readonly check: string; readonly flip: Flip }
  /** A ping the run rules noted (an overlap, a run too fast or too often). */
  | { readonly event: "note"; readonly check: string; readonly ping: PingRecord }
  | { readonly event: "notification"; readonly check: string; readonly entry: OutboxEntry }
  | { readonly event: "refused"; readonly index: number; readonly command: ReplayCommand; readonly failure: Failure };

/** Returns the n-th id (1-based) a replay hands out: "00000000-0000-4000-8000-<n in hex>". */
export function replayId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/**
 * Runs the scenario from an empty shard, handing every flip, notification and refused command to `emit`
 * as it happens; returns the final state. Commands must be in time order (the parser checks it).
 */
export function replay(scenario: ReplayScenario, emit: (event: ReplayEvent) => void): ShardSnapshot {
  let n = 0;
  const newId = () => replayId(++n);
  const shard = new Shard({ newId, now: scenario.startAt });
  const projectId = newId();
  const project: Project = {
    id: projectId,
    name: scenario.project.name,
    apiKey: `rw-${projectId}`,
    apiKeyReadonly: `ro-${projectId}`,
    pingKey: `pk-${projectId}`,
    badgeKey: `bk-${projectId}`,
    checkLimit: scenario.project.checkLimit,
    pingLogLimit: scenario.project.pingLogLimit,
    pingBodyLimit: scenario.project.pingBodyLimit,
    createdAt: scenario.startAt,
  };
  shard.apply({ kind: "createProject", project, at: scenario.startAt });
  const uuids = new Map<string, string>(); // label → uuid
  const labels = new Map<string, string>(); // uuid → label
  const report = () => {
    const changes = shard.takeChanges();
    const notifications = new Map<string, OutboxEntry[]>(); // "<check uuid> <flip n>" → its entries, in channel order
    const isNotice = (entry: OutboxEntry) => entry.flip.from === "down" && entry.flip.to === "down";
    for (const entry of changes.outbox) {
      if (isNotice(entry)) continue; // below, at its own instant
      const key = `${entry.flip.checkUuid} ${entry.flip.n}`;
      notifications.set(key, [...(notifications.get(key) ?? []), entry]);
    }
    const events: ReplayEvent[] = [];
    // a noted ping first: at its instant it comes before the flip it causes
    for (const write of changes.pings) {
      if (write.record.note !== undefined)
        events.push({ event: "note", check: labels.get(write.checkUuid) ?? write.checkUuid, ping: write.record });
    }
    for (const flip of changes.flips) {
      const check = labels.get(flip.checkUuid) ?? flip.checkUuid;
      events.push({ event: "flip", check, flip });
      for (const entry of notifications.get(`${flip.checkUuid} ${flip.n}`) ?? []) events.push({ event: "notification", check, entry });
    }
    // an outage's notices (reminders, a held down notification) have no flip of their own: in time order with the flips'
    for (const entry of changes.outbox) {
      if (isNotice(entry)) events.push({ event: "notification", check: labels.get(entry.flip.checkUuid) ?? entry.flip.checkUuid, entry });
    }
    const atOf = (event: ReplayEvent) =>
      event.event === "flip"
        ? event.flip.at
        : event.event === "notification"
          ? event.entry.flip.at
          : event.event === "note"
            ? event.ping.at
            : 0;
    events.sort((a, b) => atOf(a) - atOf(b)); // stable: a flip's notifications stay after it
    for (const event of events) emit(event);
  };
  scenario.commands.forEach((command, index) => {
    shard.apply({ kind: "advance", at: command.at });
    report();
    const refuse = (failure: Failure) => emit({ event: "refused", index, command, failure });
    const uuidOf = (label: string): string | null => {
      const uuid = uuids.get(label);
      if (uuid === undefined) refuse({ code: "not_found", what: `check ${label}` });
      return uuid ?? null;
    };
    switch (command.command) {
      case "channel": {
        const added = shard.apply({
          kind: "addChannel",
          channel: { id: newId(), projectId, ...command.channel, createdAt: command.at },
          at: command.at,
        });
        if (!added.ok) refuse(added.failure);
        break;
      }
      case "create": {
        if (uuids.has(command.check)) {
          refuse({ code: "invalid", field: "check", reason: `${command.check} exists already` });
          break;
        }
        const created = shard.apply({ kind: "createCheck", projectId, spec: command.spec, unique: [], at: command.at });
        if (!created.ok) {
          refuse(created.failure);
          break;
        }
        uuids.set(command.check, created.value.check.uuid);
        labels.set(created.value.check.uuid, command.check);
        break;
      }
      case "update": {
        const uuid = uuidOf(command.check);
        const updated = uuid === null ? null : shard.apply({ kind: "updateCheck", projectId, uuid, spec: command.spec, at: command.at });
        if (updated && !updated.ok) refuse(updated.failure);
        break;
      }
      case "ping": {
        const uuid = uuidOf(command.check);
        if (uuid === null) break;
        const { email, ...ping } = command.ping;
        const pinged = shard.apply({
          kind: "ping",
          ping: {
            target: { uuid },
            ...ping,
            ...(email ? { email } : {}),
            scheme: email ? "email" : "http",
            remoteAddr: "192.0.2.1",
            ua: "hcd replay",
            at: command.at,
          },
        });
        if (!pinged.ok) refuse(pinged.failure);
        break;
      }
      case "pause":
      case "resume": {
        const uuid = uuidOf(command.check);
        const done =
          uuid === null
            ? null
            : shard.apply({ kind: command.command === "pause" ? "pauseCheck" : "resumeCheck", projectId, uuid, at: command.at });
        if (done && !done.ok) refuse(done.failure);
        break;
      }
      case "acknowledge": {
        const uuid = uuidOf(command.check);
        const done = uuid === null ? null : shard.apply({ kind: "acknowledgeCheck", projectId, uuid, by: "replay", at: command.at });
        if (done && !done.ok) refuse(done.failure);
        break;
      }
      case "maintenance":
        shard.apply({
          kind: "addMaintenance",
          projectId,
          window: { id: newId(), ...command.window, createdAt: command.at },
          at: command.at,
        });
        break;
      case "escalation": {
        const set = shard.apply({
          kind: "changeProject",
          projectId,
          change: { kind: "setEscalation", steps: command.steps },
          at: command.at,
        });
        if (!set.ok) refuse(set.failure);
        break;
      }
      case "advance":
        break; // the clock moved to `at` above
    }
    report();
  });
  return shard.snapshot();
}
