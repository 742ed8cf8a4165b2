// Shard: owns a disjoint set of projects with their channels and checks, in memory, and one timer
// wheel of their deadlines. Every command takes `at` last and is applied synchronously; what must be
// stored accumulates until the host takes it with `takeChanges()` and commits it before answering.
import type { Changes, GatheredChanges, NoticeChannel, PingWrite } from "./changes.ts";
import { noChanges } from "./changes.ts";
import { downFacts, pushOutboxEntries } from "./outbox-entries.ts";
import type { EntryFacts, Extra, LastPing } from "./outbox-entries.ts";
import { classify, classifyEmail } from "./classify.ts";
import type {
  Channel,
  Check,
  CheckSpec,
  Downtime,
  EscalationSpecStep,
  EscalationStep,
  Flip,
  MaintenanceWindow,
  Millis,
  PingRecord,
  Project,
  UniqueField,
} from "./model.ts";
import { assertNever, checkWith, freshCheck, LIMITS } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { fail, invalid, ok } from "./outcome.ts";
import type { Notice } from "./alerting.ts";
import {
  acknowledge,
  deadlineAt,
  holdForDowntime,
  isMuted,
  muteEndOf,
  onNoticeDue,
  replanNotices,
  setHeldBy,
  settleFlips,
} from "./alerting.ts";
import { escalatedChannels, onEscalationDue, planEscalation, policyOf } from "./escalation.ts";
import { Dependents, dependencyProblem, downDependencyOf } from "./dependencies.ts";
import { maintenanceEndAt, nextMaintenanceAt } from "./maintenance.ts";
import type { ProjectChange } from "./project-changes.ts";
import { applyProjectChange } from "./project-changes.ts";
import type { Step } from "./transition.ts";
import { applySpec, onDeadline, onPause, onPing, onResume } from "./transition.ts";
import { downAt } from "./status.ts";
import { TimerWheel } from "./wheel.ts";
import { ShardState } from "./shard-state.ts";
import type { ShardSnapshot } from "./shard-state.ts";
import type { CheckQuery, PingCommand, ShardCommand, ShardPingResult, ShardResultOf } from "./commands.ts";
import type { CheckImport, ImportedPing, ImportResult } from "./check-import.ts";
import { importedCheckOf, importResultOf } from "./check-import.ts";

export type ShardOptions = {
  /** Returns a fresh random uuid; injected so that replays are deterministic. */
  readonly newId: () => string;
  /** The instant the shard starts at (its wheel starts there). */
  readonly now: Millis;
};

const WHEEL = { tickMs: 1_000, slots: 4_096 };
// the wheel's key of a project's next maintenance window start (check uuids never start so)
const MAINTENANCE_KEY = "maintenance:";

export class Shard {
  readonly #newId: () => string;
  readonly #startedAt: Millis;
  readonly #state = new ShardState();
  readonly #wheel: TimerWheel<string>;
  readonly #dependents = new Dependents(); // depends_on, reversed: the checks a check's flip holds or releases
  #changes: GatheredChanges = noChanges();
  #deadlineSteps = 0; // how many of #changes.checks a deadline step made (only status and nFlips change)
  #stateSteps = 0; // how many of #changes.checks a step made (pings, deadlines, pause, resume: only state fields change)
  #noticeSteps = 0; // how many of #changes.checks an outage's notice made (only the alerting state changes)
  // what entries keep of each channel, made once per channel record and shared by all its entries
  readonly #noticeChannels = new WeakMap<Channel, NoticeChannel>();
  // the latest instant a command was applied at, or a loaded check had an event at: a command stamped
  // earlier (a clock stepped back, a request that waited) is applied at this instant instead
  #lastAt: Millis = -Infinity;
  // each project's next maintenance window start, armed in the wheel
  readonly #maintenanceNext = new Map<string, Millis>();

  constructor(options: ShardOptions) {
    this.#newId = options.newId;
    this.#startedAt = options.now;
    this.#wheel = new TimerWheel<string>({ ...WHEEL, now: options.now });
  }

  // ---- loading (no changes recorded) ----

  /** Loads a stored project with its channels and checks, and arms their deadlines. */
  load(project: Project, channels: readonly Channel[], checks: readonly Check[]): void {
    this.#state.putProject(project);
    this.#state.setChannels(project.id, channels);
    this.#armMaintenance(project, this.#startedAt); // a window already running mutes through #muteOf all the same
    for (const loaded of checks) {
      const check = this.#state.compact(loaded);
      this.#state.putCheck(check);
      this.#dependents.replace(check.uuid, undefined, check.dependsOn);
      const at = deadlineAt(check);
      if (at !== null) this.#wheel.set(check.uuid, at); // a loaded check is not in the wheel yet: nothing to delete
      this.#lastAt = Math.max(
        this.#lastAt,
        check.lastPingAt ?? -Infinity,
        check.lastStartAt ?? -Infinity,
        check.alert?.downSinceAt ?? -Infinity,
      );
    }
  }

  /** Returns the whole state (projects, channels, checks), sorted for stable comparison. */
  snapshot(): ShardSnapshot {
    return this.#state.snapshot();
  }

  /** Number of checks. */
  get checkCount(): number {
    return this.#state.checkCount;
  }

  /** Yields [uuid, projectId, badgeKey] of every check, unsorted (the pool's routing directory). */
  routes(): Generator<[string, string, string]> {
    return this.#state.routes();
  }

  /** Yields [uuid, push token] of every check that has one (the pool's push token directory). */
  pushTokens(): Generator<[string, string]> {
    return this.#state.pushTokens();
  }

  /** Returns and clears what the commands since the last call want stored. */
  /** Returns how many notifications the changes not yet taken hold (a host commits those without delay). */
  pendingNotifications(): number {
    return this.#changes.outbox.length;
  }

  takeChanges(): Changes {
    const taken = this.#changes,
      n = taken.checks.length;
    // the narrowest that holds when every check change since the last take was one kind of step (see
    // Changes): deadline steps only (just each check's status), notices only (just the alerting state),
    // or steps (just the state fields); notices and deadline steps are steps too, so the order decides
    const changes =
      n === 0
        ? taken
        : this.#deadlineSteps === n
          ? { ...taken, statusOnly: true }
          : this.#noticeSteps === n
            ? { ...taken, alertOnly: true }
            : this.#stateSteps === n
              ? { ...taken, stateOnly: true }
              : taken;
    this.#changes = noChanges();
    this.#deadlineSteps = 0;
    this.#stateSteps = 0;
    this.#noticeSteps = 0;
    // a batch of pings steps the same checks many times: store each check's last state once
    const last = new Map<string, Check>();
    for (const check of changes.checks) last.set(check.uuid, check);
    return { ...changes, checks: [...last.values()] };
  }

  /**
   * Applies one command: the single entry of every change (hosts, replays and scenarios call it). Time
   * never runs backwards for a shard: a command stamped before the last one applied is applied at that
   * instant, so no ping or flip is ever stamped before one already recorded.
   */
  apply<C extends ShardCommand>(command: C): ShardResultOf<C> {
    return this.#dispatch(this.#inOrder(command)) as ShardResultOf<C>; // #dispatch's switch pairs each kind with its result
  }

  /** Returns the command stamped no earlier than the last one applied (the same object when it already is), and moves that mark. */
  #inOrder<C extends ShardCommand>(command: C): C {
    const at = command.kind === "ping" ? command.ping.at : command.at;
    if (at >= this.#lastAt) {
      this.#lastAt = at;
      return command;
    }
    if (command.kind === "ping") return { ...command, ping: { ...command.ping, at: this.#lastAt } };
    return { ...command, at: this.#lastAt };
  }

  #dispatch(c: ShardCommand): ShardResultOf<ShardCommand> {
    switch (c.kind) {
      case "createProject":
        return this.createProject(c.project, c.at);
      case "muteProject":
        return this.muteProject(c.projectId, c.untilAt, c.at);
      case "changeProject":
        return this.changeProject(c.projectId, c.change, c.at);
      case "addMaintenance":
        return this.addMaintenance(c.projectId, c.window, c.at);
      case "removeMaintenance":
        return this.removeMaintenance(c.projectId, c.windowId, c.at);
      case "addChannel":
        return this.addChannel(c.channel, c.at);
      case "removeChannel":
        return this.removeChannel(c.projectId, c.channelId, c.at);
      case "updateChannel":
        return this.updateChannel(
          c.projectId,
          c.channelId,
          { name: c.name, value: c.value, newChecks: c.newChecks, everyFailure: c.everyFailure },
          c.at,
        );
      case "createCheck":
        return this.createCheck(c.projectId, c.spec, c.unique, c.at, c.uuid);
      case "updateCheck":
        return this.updateCheck(c.projectId, c.uuid, c.spec, c.at);
      case "pauseCheck":
        return this.pauseCheck(c.projectId, c.uuid, c.at);
      case "resumeCheck":
        return this.resumeCheck(c.projectId, c.uuid, c.at);
      case "deleteCheck":
        return this.deleteCheck(c.projectId, c.uuid, c.at);
      case "acknowledgeCheck":
        return this.acknowledgeCheck(c.projectId, c.uuid, c.by, c.at);
      case "ping":
        return this.ping(c.ping);
      case "importCheck":
        return this.importCheck(c.projectId, c.check, c.at);
      case "importPings":
        return this.importPings(c.projectId, c.uuid, c.pings, c.at);
      case "advance":
        return this.advance(c.at);
      case "holdForDowntime":
        return this.holdForDowntime(c.downtime, c.at);
      default:
        return assertNever(c);
    }
  }

  // ---- projects and channels ----

  /** Adds a new project (ids and keys chosen by the caller). */
  createProject(project: Project, at: Millis): Project {
    void at;
    this.#state.putProject(project);
    this.#changes.projects.push(project);
    return project;
  }

  /** Returns the projects of this shard. */
  projects(): Project[] {
    return this.#state.projects();
  }

  /** Adds a channel to a project. */
  addChannel(channel: Channel, at: Millis): Outcome<Channel> {
    void at;
    if (!this.#state.addChannel(channel)) return fail({ code: "not_found", what: "project" });
    this.#changes.channels.push(channel);
    return ok(channel);
  }

  /**
   * Removes a channel from a project: every check of the project stops notifying it, and the store drops
   * its notifications still waiting in the outbox. Deadlines already due are left to fire afterwards (the
   * timer's next tick, or the next command on the check): nothing reaches a removed channel after `at`.
   */
  removeChannel(projectId: string, channelId: string, at: Millis): Outcome<Channel> {
    void at;
    if (!this.#state.project(projectId)) return fail({ code: "not_found", what: "project" });
    const removed = this.#state.removeChannel(projectId, channelId);
    if (removed === undefined) return fail({ code: "not_found", what: "channel" });
    for (const uuid of this.#state.checkUuids(projectId)) {
      const check = this.#state.check(uuid);
      if (check === undefined) continue;
      const escalation = check.escalation === undefined ? undefined : withoutChannel(check.escalation, channelId);
      if (check.channels.includes(channelId) || escalation !== check.escalation) {
        this.#store(checkWith(check, { channels: check.channels.filter((id) => id !== channelId), escalation }));
      }
    }
    const project = this.#state.project(projectId);
    const policy = project?.escalation === undefined ? undefined : withoutChannel(project.escalation, channelId);
    if (project !== undefined && policy !== project.escalation) {
      const { escalation: _before, ...rest } = project;
      const changed = policy === undefined || policy.length === 0 ? rest : { ...rest, escalation: policy };
      this.#state.putProject(changed);
      this.#changes.projects.push(changed);
    }
    this.#changes.deletedChannels.push({ projectId, id: channelId });
    return ok(removed);
  }

  /**
   * Replaces a channel's name and value, keeping its id, kind and creation time: checks keep notifying it,
   * and notifications already in the outbox keep the channel as it was when they were queued.
   */
  updateChannel(
    projectId: string,
    channelId: string,
    change: Pick<Channel, "name" | "value" | "newChecks" | "everyFailure">,
    at: Millis,
  ): Outcome<Channel> {
    void at;
    if (!this.#state.project(projectId)) return fail({ code: "not_found", what: "project" });
    const known = this.#state.channels(projectId).find((c) => c.id === channelId);
    if (known === undefined) return fail({ code: "not_found", what: "channel" });
    if (change.value.kind !== known.kind) return invalid("kind", `cannot change (the integration is ${known.kind})`);
    const newChecks = change.newChecks ?? known.newChecks; // absent: unchanged
    const everyFailure = change.everyFailure ?? known.everyFailure;
    const { needsSettings: _given, newChecks: _was, everyFailure: _before, ...settled } = known; // a stub given its settings is one no more
    const updated: Channel = {
      ...settled,
      name: change.name,
      value: change.value,
      ...(newChecks === false ? { newChecks } : {}),
      ...(everyFailure === true ? { everyFailure } : {}),
    };
    this.#state.replaceChannel(updated);
    this.#changes.channels.push(updated);
    return ok(updated);
  }

  /** Returns a project's channels in creation order. */
  channels(projectId: string): Channel[] {
    return [...this.#state.channels(projectId)];
  }

  // ---- checks ----

  /** Returns the project's checks, filtered by exact slug and by tags (each must be carried). */
  listChecks(projectId: string, query: CheckQuery): Check[] {
    return this.#state.listChecks(projectId, query);
  }

  /** Returns a check of the project: not_found when unknown, forbidden when another project owns it. */
  getCheck(projectId: string, uuid: string): Outcome<Check> {
    const check = this.#state.check(uuid);
    if (!check) return fail({ code: "not_found", what: "check" });
    if (check.projectId !== projectId) return fail({ code: "forbidden" });
    return ok(check);
  }

  /** As getCheck, after applying the check's own deadlines due by `at` (before a command changes it). */
  #dueCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    const found = this.getCheck(projectId, uuid);
    return found.ok ? ok(this.#catchUp(found.value, at)) : found;
  }

  /**
   * Creates a check, or with `unique` updates the first check matching on those fields. `uuid`: the new
   * check's own (a check moved from another host keeps its ping URL); invalid when a check has it.
   */
  createCheck(
    projectId: string,
    spec: CheckSpec,
    unique: readonly UniqueField[],
    at: Millis,
    uuid?: string,
  ): Outcome<{ check: Check; created: boolean }> {
    const project = this.#state.project(projectId);
    if (!project) return fail({ code: "not_found", what: "project" });
    if (uuid !== undefined && this.#state.check(uuid) !== undefined) return invalid("uuid", "is taken by another check");
    const channels = this.#state.resolveChannels(projectId, spec.channels);
    if (!channels.ok) return channels;
    const escalation = this.#state.resolveEscalation(projectId, spec.escalation);
    if (!escalation.ok) return escalation;
    const resolved = { channelIds: channels.value, escalation: escalation.value };
    const match = this.#state.findUnique(projectId, spec, unique);
    const dependencies = this.#validDependencies(projectId, match?.uuid ?? null, spec);
    if (!dependencies.ok) return dependencies;
    if (match) {
      const due = this.#catchUp(match, at);
      return ok({ check: this.#dueAfterChange(this.#storeUpdate(due, applySpec(due, spec, resolved), spec, at), at), created: false });
    }
    if (this.#state.checkCountOf(projectId) >= project.checkLimit) return fail({ code: "check_limit" });
    const made = this.#newCheck(projectId, at); // its two ids drawn either way: a replay draws the same
    const fresh = uuid === undefined ? made : checkWith(made, { uuid });
    const check = this.#storeUpdate(fresh, applySpec(fresh, spec, resolved), spec, at);
    return ok({ check, created: true });
  }

  /** Updates the given fields of a check; status and pings are never changed by an update. */
  updateCheck(projectId: string, uuid: string, spec: CheckSpec, at: Millis): Outcome<Check> {
    const found = this.#dueCheck(projectId, uuid, at);
    if (!found.ok) return found;
    const channels = this.#state.resolveChannels(projectId, spec.channels);
    if (!channels.ok) return channels;
    const escalation = this.#state.resolveEscalation(projectId, spec.escalation);
    if (!escalation.ok) return escalation;
    const dependencies = this.#validDependencies(projectId, uuid, spec);
    if (!dependencies.ok) return dependencies;
    const resolved = { channelIds: channels.value, escalation: escalation.value };
    return ok(this.#dueAfterChange(this.#storeUpdate(found.value, applySpec(found.value, spec, resolved), spec, at), at));
  }

  /**
   * Brings a check over (engine/check-import.ts): a new one is made whole with its uuid, state and flips
   * (within the project's check limit); one already in the project takes the imported settings when they
   * differ, and keeps its state and history; another project's is forbidden.
   */
  importCheck(projectId: string, imported: CheckImport, at: Millis): Outcome<{ check: Check; result: ImportResult }> {
    const project = this.#state.project(projectId);
    if (!project) return fail({ code: "not_found", what: "project" });
    const existing = this.#state.check(imported.uuid);
    if (existing !== undefined && existing.projectId !== projectId) return fail({ code: "forbidden" });
    const channels = this.#state.resolveChannels(projectId, imported.spec.channels);
    if (!channels.ok) return channels;
    const result = importResultOf(existing ?? null, imported, channels.value);
    if (existing !== undefined) {
      if (result === "unchanged") return ok({ check: existing, result });
      const updated = this.updateCheck(projectId, imported.uuid, { ...imported.spec, dependsOn: undefined }, at);
      return updated.ok ? ok({ check: updated.value, result }) : updated;
    }
    if (this.#state.checkCountOf(projectId) >= project.checkLimit) return fail({ code: "check_limit" });
    const made = importedCheckOf(projectId, imported, channels.value);
    for (const flip of made.flips) this.#changes.flips.push(flip);
    return ok({ check: this.#store(made.check), result });
  }

  /** Logs past pings of an imported check as they were numbered (at most its n_pings), bodies cut to the project's limit; returns how many. */
  importPings(projectId: string, uuid: string, pings: readonly ImportedPing[], at: Millis): Outcome<number> {
    void at;
    const found = this.getCheck(projectId, uuid);
    const project = this.#state.project(projectId);
    if (!found.ok || project === undefined) return found.ok ? fail({ code: "not_found", what: "project" }) : found;
    const beyond = pings.find((ping) => ping.record.n < 1 || ping.record.n > found.value.nPings);
    if (beyond !== undefined)
      return invalid("pings", `has ping ${beyond.record.n}, outside 1 to the check's n_pings (${found.value.nPings})`);
    for (const { record, body } of pings) {
      const stored = storedBody(body, project.pingBodyLimit);
      this.#changes.pings.push({
        projectId,
        checkUuid: uuid,
        record: { ...record, bodySize: stored?.length ?? 0 },
        body: stored,
        keep: project.pingLogLimit,
      });
    }
    return ok(pings.length);
  }

  /**
   * A settings change (a shorter timeout or grace, another schedule) that moved the check's deadline before
   * `at` makes it due at once, at `at`: a flip stamped at the deadline itself would come before pings the
   * check logged since (ignored ones too), and before the change that caused it.
   */
  #dueAfterChange(check: Check, at: Millis): Check {
    const dueAt = downAt(check);
    if (dueAt === null || dueAt >= at) return check;
    return this.#apply(onDeadline(check, at, at), null);
  }

  /**
   * Sets a project's mute (maintenance window) at `at`: until `untilAt` no check of the project notifies,
   * as if each check's own muted_until were the later of the two; null ends it. Deadlines due before `at`
   * are applied first, under the mute that was in effect then.
   */
  muteProject(projectId: string, untilAt: Millis | null, at: Millis): Outcome<Project> {
    const project = this.#state.project(projectId);
    if (!project) return fail({ code: "not_found", what: "project" });
    return ok(this.#changeProject({ ...project, mutedUntilAt: untilAt }, at));
  }

  /** Changes the project record alone (engine/project-changes.ts): no check's state or notice moves. */
  changeProject(projectId: string, change: ProjectChange, at: Millis): Outcome<Project> {
    const project = this.#state.project(projectId);
    if (!project) return fail({ code: "not_found", what: "project" });
    if (change.kind === "setEscalation") return this.#setEscalation(project, change.steps, at);
    const changed = applyProjectChange(project, change, (uuid) => this.#state.check(uuid)?.projectId === projectId);
    if (!changed.ok) return changed;
    this.#state.putProject(changed.value);
    this.#changes.projects.push(changed.value);
    if (changed.value.maintenance !== project.maintenance) this.#armMaintenance(changed.value, at); // a deleted project's windows go
    return changed;
  }

  /**
   * Adds a recurring maintenance window to a project (CONTRACT "Alerting, second part"): each time its
   * schedule fires, the project is muted for its duration, as by a project mute. A window with the id of
   * one the project has replaces it in place (an edit).
   */
  addMaintenance(projectId: string, window: MaintenanceWindow, at: Millis): Outcome<Project> {
    const project = this.#state.project(projectId);
    if (!project) return fail({ code: "not_found", what: "project" });
    const windows = project.maintenance ?? [];
    const replaced = windows.some((w) => w.id === window.id) ? windows.map((w) => (w.id === window.id ? window : w)) : [...windows, window];
    return ok(this.#changeProject({ ...project, maintenance: replaced }, at));
  }

  /** Removes a maintenance window; a check its mute held is notified at once (not_found: no such project or window). */
  removeMaintenance(projectId: string, windowId: string, at: Millis): Outcome<Project> {
    const project = this.#state.project(projectId);
    if (!project) return fail({ code: "not_found", what: "project" });
    const left = (project.maintenance ?? []).filter((window) => window.id !== windowId);
    if (left.length === (project.maintenance ?? []).length) return fail({ code: "not_found", what: "maintenance window" });
    return ok(this.#changeProject({ ...project, maintenance: left.length === 0 ? undefined : left }, at));
  }

  /**
   * Stores a project whose mutes changed at `at`: deadlines due before `at` are applied first, under the
   * mutes in effect then; then each down check's notices are planned again under the new ones.
   */
  #changeProject(changed: Project, at: Millis): Project {
    const projectId = changed.id;
    const due = this.#state.checkUuids(projectId).flatMap((uuid) => {
      const check = this.#state.check(uuid);
      return check ? [this.#catchUp(check, at)] : [];
    });
    this.#state.putProject(changed);
    this.#changes.projects.push(changed);
    this.#armMaintenance(changed, at);
    for (const check of due) this.#replan(check, at);
    return changed;
  }

  /**
   * Sets the project's escalation policy (its channels resolved as a check's): the down checks that follow
   * it plan their next step again from `at`.
   */
  #setEscalation(project: Project, steps: readonly EscalationSpecStep[], at: Millis): Outcome<Project> {
    if (project.deletedAt !== undefined) return fail({ code: "not_found", what: "project" });
    const resolved = this.#state.resolveEscalation(project.id, steps);
    if (!resolved.ok) return resolved;
    const { escalation: _before, ...rest } = project;
    const policy = resolved.value ?? [];
    return ok(this.#changeProject(policy.length === 0 ? rest : { ...rest, escalation: policy }, at));
  }

  /** Plans a down check's notices (and its next escalation step) again at `at` under the mutes in effect then. */
  #replan(check: Check, at: Millis): void {
    const planned = replanNotices(check, check, at, this.#muteOf(check, at));
    const escalating = planEscalation(planned.check, this.#policyOf(planned.check), at);
    if (escalating !== check) this.#store(escalating);
    if (planned.notice !== null) this.#queueNotice(escalating, planned.notice);
  }

  /** The escalation policy in effect for the check: its own, else its project's. */
  #policyOf(check: Check): readonly EscalationStep[] {
    return policyOf(check, this.#state.project(check.projectId)?.escalation);
  }

  /** Arms the wheel for the project's next maintenance window start after `afterAt` (none: disarmed). */
  #armMaintenance(project: Project, afterAt: Millis): void {
    const key = MAINTENANCE_KEY + project.id;
    const next = nextMaintenanceAt(project.maintenance, afterAt);
    if (next === null) {
      this.#wheel.delete(key);
      this.#maintenanceNext.delete(project.id);
    } else {
      this.#wheel.set(key, next);
      this.#maintenanceNext.set(project.id, next);
    }
  }

  /** A maintenance window of the project starts at `at`: its down checks' notices wait for the window's end. */
  #startMaintenance(projectId: string, at: Millis): void {
    const project = this.#state.project(projectId);
    if (project === undefined) return;
    for (const uuid of this.#state.checkUuids(projectId)) {
      const check = this.#state.check(uuid);
      if (check !== undefined) this.#replan(this.#catchUp(check, at), at);
    }
    this.#armMaintenance(project, at);
  }

  /** Pauses a check (a no-op when already paused). */
  pauseCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    const found = this.#dueCheck(projectId, uuid, at);
    if (!found.ok) return found;
    return ok(this.#apply(onPause(found.value, at), null));
  }

  /** Resumes a paused check; not_paused otherwise. */
  resumeCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    const found = this.#dueCheck(projectId, uuid, at);
    if (!found.ok) return found;
    const step = onResume(found.value, at);
    if (!step.ok) return step;
    return ok(this.#apply(step.value, null));
  }

  /** Acknowledges a down check's outage: its reminders stop until it ends; not_down when it is not down (by `at`). */
  acknowledgeCheck(projectId: string, uuid: string, by: string, at: Millis): Outcome<Check> {
    const found = this.#dueCheck(projectId, uuid, at);
    if (!found.ok) return found;
    const acknowledged = acknowledge(found.value, { at, by });
    if (acknowledged === null) return fail({ code: "not_down" });
    return ok(acknowledged === found.value ? acknowledged : this.#store(acknowledged));
  }

  /** Deletes a check; returns it as it was, with no channels (the reference's answer). */
  deleteCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    const found = this.#dueCheck(projectId, uuid, at);
    if (!found.ok) return found;
    this.#state.deleteCheck(projectId, uuid);
    this.#wheel.delete(uuid);
    this.#changes.deletedChecks.push({ projectId, uuid });
    this.#dependents.replace(uuid, found.value.dependsOn, undefined);
    // the checks that depended on it depend on it no more (and are released if it held them)
    for (const dependent of this.#dependents.of(uuid)) {
      const check = this.#state.check(dependent);
      if (check === undefined) continue;
      const left = (check.dependsOn ?? []).filter((id) => id !== uuid);
      this.#storeUpdate(check, checkWith(check, { dependsOn: left.length === 0 ? undefined : left }), { dependsOn: left }, at);
    }
    return ok({ ...found.value, channels: [] });
  }

  // ---- pings and deadlines ----

  /** Applies one ping: finds (or creates) the check, classifies, steps and logs it. */
  ping(command: PingCommand): Outcome<ShardPingResult> {
    const target = this.#pingTarget(command);
    if (!target.ok) return target;
    const created = target.value.created;
    const check = this.#catchUp(target.value.check, command.at);
    const project = this.#state.project(check.projectId);
    if (!project) return fail({ code: "not_found", what: "project" });
    const kind = command.email
      ? classifyEmail(check, command.email)
      : classify(check, { signal: command.signal, exitStatus: command.exitStatus, method: command.method, body: command.body ?? "" });
    const step = onPing(check, kind, command.rid, command.at);
    const stored = storedBody(command.body, project.pingBodyLimit);
    const note = step.note ?? null;
    const plain: PingRecord = {
      n: step.check.nPings,
      at: command.at,
      kind,
      scheme: command.scheme,
      remoteAddr: command.remoteAddr,
      method: command.method,
      ua: command.ua.slice(0, LIMITS.uaMaxChars),
      rid: command.rid,
      exitStatus: command.exitStatus,
      bodySize: stored?.length ?? 0,
    };
    const record: PingRecord = note === null ? plain : { ...plain, note }; // a note is rare: no "note" key on most records
    const write: PingWrite = { projectId: check.projectId, checkUuid: check.uuid, record, body: stored, keep: project.pingLogLimit };
    this.#changes.pings.push(write);
    const after = this.#apply(step, { record, body: write.body });
    // a failure that found the check down already: the integrations that hear of every failure hear of it
    if (step.failure != null && step.flips.length === 0 && after.status === "down")
      this.#queueFailedAgain(after, step, { record, body: write.body });
    return ok({ checkUuid: check.uuid, created, badgeKey: check.badgeKey });
  }

  /** The earliest instant an advance has something to apply at (a deadline, a reminder), or null when none waits. */
  nextDueAt(): Millis | null {
    return this.#wheel.nextDueAt();
  }

  /** Applies every deadline due at or before `now`, each at its own due time, earliest first. */
  advance(now: Millis): void {
    // The wheel answers earliest first; a check whose step makes it due again by `now` (an open run that
    // outlived its grace after a late deadline) is set in the past and comes back in the next round.
    for (let due = this.#wheel.advance(now); due.length > 0; due = this.#wheel.advance(now)) {
      for (const uuid of due) {
        if (uuid.startsWith(MAINTENANCE_KEY)) {
          this.#maintenanceDue(uuid.slice(MAINTENANCE_KEY.length), now);
          continue;
        }
        const check = this.#state.check(uuid);
        const current = check ? deadlineAt(check) : null;
        if (!check || current === null) continue;
        if (current > now) {
          this.#wheel.set(uuid, current);
          continue;
        }
        const next = deadlineAt(this.#fire(check, current, false));
        if (next !== null && next > current) this.#wheel.set(uuid, next); // settled otherwise: never re-fire an instant
      }
    }
  }

  /** The wheel's entry of a project's next maintenance window is due by `now`: the window starts at its own instant. */
  #maintenanceDue(projectId: string, now: Millis): void {
    const startAt = this.#maintenanceNext.get(projectId);
    if (startAt === undefined) return;
    if (startAt > now) {
      this.#wheel.set(MAINTENANCE_KEY + projectId, startAt);
      return;
    }
    // applied at its instant, or (found late, after a command stamped later) at that command's: never back in time
    this.#startMaintenance(projectId, Math.max(startAt, this.#lastAt));
  }

  /**
   * Holds every check whose deadline fell in hcd's own `downtime` (engine/alerting.ts holdForDowntime):
   * it is judged once its grace has passed since the downtime's end. Returns how many it holds.
   */
  holdForDowntime(downtime: Downtime, at: Millis): number {
    void at;
    let held = 0;
    for (const project of this.#state.projects()) {
      for (const uuid of this.#state.checkUuids(project.id)) {
        const check = this.#state.check(uuid);
        const holding = check === undefined ? null : holdForDowntime(check, downtime);
        if (holding === null) continue;
        this.#store(holding);
        held++;
      }
    }
    return held;
  }

  /** Returns the check uuids of a project (for lookups the host does, such as unique_key). */
  checkUuids(projectId: string): string[] {
    return this.#state.checkUuids(projectId);
  }

  // ---- internals ----

  /** Applies the check's deadlines that fell due by `at`, each stamped with its own due time. */
  #catchUp(check: Check, at: Millis): Check {
    let current = check;
    for (let dueAt = deadlineAt(current); dueAt !== null && dueAt <= at;) {
      current = this.#fire(current, dueAt, true);
      const next = deadlineAt(current);
      if (next === null || next <= dueAt) break; // settled
      dueAt = next;
    }
    return current;
  }

  /** Applies the deadline due at `at` (deadlineAt): the missed ping's, else the outage's next escalation step and notice. */
  #fire(check: Check, at: Millis, rearm: boolean): Check {
    // `at` is deadlineAt(check): the notice's or escalation's when it is their due time (a check with one is down: no down deadline)
    const escalating = check.alert?.escalateAt === at;
    if (check.alert?.dueAt !== at && !escalating) {
      const fired = this.#apply(onDeadline(check, at), null, rearm);
      // a flip that planned no notice changed only status and nFlips (`check` is the stored one): the store may log just those
      if (fired.alert === check.alert) this.#deadlineSteps++;
      return fired;
    }
    // a notice changes the check's alerting state only (no flips to settle): stored as is, no step around it
    const mute = this.#muteOf(check, at);
    const escalated = escalating ? onEscalationDue(check, this.#policyOf(check), at, mute) : { check, reached: [] };
    const due = escalated.check.alert?.dueAt === at ? onNoticeDue(escalated.check, at, mute) : { check: escalated.check, notice: null };
    this.#state.putCheck(due.check);
    if (rearm) this.#arm(due.check);
    this.#changes.checks.push(due.check);
    this.#stateSteps++; // only the alerting state changed: the store may log just the state fields,
    this.#noticeSteps++; // or just the alerting state when every change since the last take is a notice's
    if (due.notice !== null) this.#queueNotice(due.check, due.notice);
    for (const step of escalated.reached) {
      const flip: Flip = { checkUuid: check.uuid, n: due.check.nFlips, at, from: "down", to: "down", reason: "", notify: true };
      this.#queueNotifications(due.check, flip, null, null, {
        channels: step.channels,
        notice: `e${step.level}`,
        downSinceAt: due.check.alert?.downSinceAt ?? null,
        facts: { escalation: step.level },
      });
    }
    return due.check;
  }

  /**
   * Queues a failure that found the check down (no flip of its own) to its integrations that hear of every
   * failure (every_failure), unless a mute or a dependency holds its notifications.
   */
  #queueFailedAgain(check: Check, step: Step, lastPing: LastPing): void {
    const at = lastPing.record.at;
    if (check.alert?.heldBy !== undefined || isMuted(this.#muteOf(check, at), at)) return;
    const channels = this.#state
      .channels(check.projectId)
      .filter((c) => c.everyFailure === true && check.channels.includes(c.id))
      .map((c) => c.id);
    if (channels.length === 0) return;
    const flip: Flip = {
      checkUuid: check.uuid,
      n: check.nFlips,
      at,
      from: "down",
      to: "down",
      reason: step.failure ?? "fail",
      notify: true,
    };
    const facts: EntryFacts = step.facts == null ? { failedAgain: lastPing.record.n } : { failedAgain: lastPing.record.n, run: step.facts };
    this.#queueNotifications(check, flip, lastPing, null, {
      channels,
      notice: `f${lastPing.record.n}`,
      downSinceAt: check.alert?.downSinceAt ?? null,
      facts,
    });
  }

  /** Returns the mute in effect for the check: the later of its own and its project's; null = none. */
  #muteOf(check: Check, at: Millis): Millis | null {
    const project = this.#state.project(check.projectId);
    const muted = muteEndOf(check.mutedUntilAt ?? null, project?.mutedUntilAt ?? null);
    return project?.maintenance === undefined ? muted : muteEndOf(muted, maintenanceEndAt(project.maintenance, at));
  }

  /** Stores an updated check; a changed escalation policy plans the outage's next step again from `at`. */
  #storeUpdate(before: Check, after: Check, spec: CheckSpec, at: Millis): Check {
    const stored = this.#storeSettings(before, after, spec, at);
    if (spec.escalation === undefined) return stored;
    const planned = planEscalation(stored, this.#policyOf(stored), at);
    return planned === stored ? stored : this.#store(planned);
  }

  /** Stores an updated check; a changed mute or reminder interval re-plans its outage's notices from `at`. */
  #storeSettings(before: Check, after: Check, spec: CheckSpec, at: Millis): Check {
    if (spec.dependsOn !== undefined) {
      this.#dependents.replace(after.uuid, before.dependsOn, after.dependsOn);
      // new dependencies: held if one of them is down, released if none is
      const held = setHeldBy(
        after,
        downDependencyOf(after, (id) => this.#state.check(id)),
        at,
        this.#muteOf(after, at),
      );
      const stored = this.#store(planEscalation(held.check, this.#policyOf(held.check), at));
      if (held.notice !== null) this.#queueNotice(stored, held.notice);
      return spec.mutedUntilAt === undefined && spec.reminderIntervalMs === undefined
        ? stored
        : this.#storeSettings(before, stored, { ...spec, dependsOn: undefined }, at);
    }
    if (spec.mutedUntilAt === undefined && spec.reminderIntervalMs === undefined) return this.#store(after);
    const planned = replanNotices(before, after, at, this.#muteOf(after, at));
    const stored = this.#store(planned.check);
    if (planned.notice !== null) this.#queueNotice(stored, planned.notice);
    return stored;
  }

  /** Checks a spec's depends_on for check `uuid` (null: one being created) of the project: invalid when it names another project's check or makes a cycle. */
  #validDependencies(projectId: string, uuid: string | null, spec: CheckSpec): Outcome<null> {
    if (spec.dependsOn === undefined) return ok(null);
    const problem = dependencyProblem({ uuid, projectId, dependsOn: spec.dependsOn, checkOf: (id) => this.#state.check(id) });
    return problem === null ? ok(null) : fail({ code: "invalid", field: "depends_on", reason: problem });
  }

  /** A check went down or came back up at `at`: the checks depending on it are held or released. */
  #holdDependents(uuid: string, at: Millis): void {
    for (const dependent of this.#dependents.of(uuid)) {
      const found = this.#state.check(dependent);
      if (found === undefined) continue;
      const check = this.#catchUp(found, at);
      const held = setHeldBy(
        check,
        downDependencyOf(check, (id) => this.#state.check(id)),
        at,
        this.#muteOf(check, at),
      );
      const planned = planEscalation(held.check, this.#policyOf(held.check), at); // released: the next step counts on
      if (planned !== check) this.#store(planned);
      if (held.notice !== null) this.#queueNotice(planned, held.notice);
    }
  }

  /** Queues a notice's notifications: the check's down state at the notice's instant, to every assigned channel. */
  #queueNotice(check: Check, notice: Notice): void {
    const flip: Flip = { checkUuid: check.uuid, n: check.nFlips, at: notice.at, from: "down", to: "down", reason: "", notify: true };
    this.#queueNotifications(check, flip, null, notice);
  }

  #arm(check: Check): void {
    const at = deadlineAt(check);
    if (at === null) this.#wheel.delete(check.uuid);
    else this.#wheel.set(check.uuid, at);
  }

  /** Stores a changed check (in memory and in the pending changes) and re-arms its deadline. */
  #store(check: Check): Check {
    this.#state.putCheck(check);
    this.#arm(check);
    this.#changes.checks.push(check);
    return check;
  }

  /** Stores a step's check and flips, and queues the notifications its flips call for. */
  #apply(step: Step, lastPing: LastPing | null, rearm = true): Check {
    // flips notify unless muted, and start or end an outage (engine/alerting.ts)
    const settled = step.flips.length === 0 ? null : settleFlips(step.check, step.flips, this.#muteOf(step.check, step.flips[0].at));
    // a down flip plans the outage's first escalation step (engine/escalation.ts); any other flip ended it
    const policy = settled === null ? null : this.#policyOf(step.check);
    const check =
      settled === null
        ? step.check
        : step.flips[0].to === "down" && policy !== null
          ? planEscalation(settled.check, policy, step.flips[0].at)
          : settled.check;
    this.#state.putCheck(check);
    if (rearm) this.#arm(check);
    this.#changes.checks.push(check);
    this.#stateSteps++; // a step changes state fields only: the store may log just those
    for (const flip of step.flips) this.#changes.flips.push(flip);
    if (settled !== null) {
      for (const flip of settled.notify) {
        this.#queueNotifications(check, flip, lastPing, null, flip.to === "down" ? downFacts(step, flip) : null);
        // the integrations an escalation reached hear of the outage's end too
        const escalated = flip.to === "up" && policy !== null ? escalatedChannels(step.check, policy) : null;
        if (escalated !== null && escalated.length > 0) this.#queueNotifications(check, flip, lastPing, null, { channels: escalated });
      }
    }
    for (const flip of step.flips) if ((flip.from === "down") !== (flip.to === "down")) this.#holdDependents(check.uuid, flip.at);
    return check;
  }

  /** Queues the flip's (or notice's) notification to each channel assigned to the check (or to `extra.channels`): outbox-entries.ts. */
  #queueNotifications(check: Check, flip: Flip, lastPing: LastPing | null, notice: Notice | null, extra: Extra | null = null): void {
    if ((extra?.channels ?? check.channels).length === 0) return; // most checks of a burst of flips
    const projectName = this.#state.project(check.projectId)?.name ?? "";
    pushOutboxEntries(this.#changes.outbox, {
      check,
      flip,
      lastPing,
      notice,
      extra,
      projectName,
      channels: this.#state.channels(check.projectId),
      kept: this.#noticeChannels,
    });
  }

  #pingTarget(command: PingCommand): Outcome<{ check: Check; created: boolean }> {
    const target = command.target;
    if ("uuid" in target) {
      const check = this.#state.check(target.uuid);
      return check ? ok({ check, created: false }) : fail({ code: "not_found", what: "check" });
    }
    const project = this.#state.projectByPingKey(target.pingKey);
    if (!project) return fail({ code: "not_found", what: "check" });
    const matches = this.listChecks(project.id, { slug: target.slug, tags: [] });
    if (matches.length > 1) return fail({ code: "ambiguous_slug" });
    if (matches.length === 1) return ok({ check: matches[0], created: false });
    // Auto-provisioning may go over the check limit up to twice (reference).
    if (!target.create || this.#state.checkCountOf(project.id) >= 2 * project.checkLimit) {
      return fail({ code: "not_found", what: "check" });
    }
    const allChannels = this.#state
      .channels(project.id)
      .filter((c) => c.newChecks !== false)
      .map((c) => c.id)
      .sort(); // the reference: every integration; here those "added to new checks"
    const check = this.#store(
      checkWith(this.#newCheck(project.id, command.at), { name: target.slug, slug: target.slug, channels: allChannels }),
    );
    return ok({ check, created: true });
  }

  #newCheck(projectId: string, at: Millis): Check {
    const uuid = this.#newId(); // the uuid first, then the badge key: the order a cluster's record hands them out
    return freshCheck({ uuid, badgeKey: this.#newId(), projectId }, at);
  }
}

/** Returns the policy without channel `id` (a step left with none is dropped), or the same policy when it never names it. */
function withoutChannel(policy: readonly EscalationStep[], id: string): readonly EscalationStep[] {
  if (!policy.some((step) => step.channels.includes(id))) return policy;
  return policy
    .map((step) => ({ afterMs: step.afterMs, channels: step.channels.filter((c) => c !== id) }))
    .filter((step) => step.channels.length > 0);
}

/** Returns the part of a ping body the log keeps: the first `limitBytes` bytes (a copy when cut), or null for none. */
function storedBody(body: Uint8Array | null, limitBytes: number): Uint8Array | null {
  if (body === null || body.length === 0 || limitBytes <= 0) return null;
  return body.length > limitBytes ? body.slice(0, limitBytes) : body;
}
