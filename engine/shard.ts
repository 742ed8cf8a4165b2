// Shard: owns a disjoint set of projects with their channels and checks, in memory, and one timer
// wheel of their deadlines. Every command takes `at` last and is applied synchronously; what must be
// stored accumulates until the host takes it with `takeChanges()` and commits it before answering.
import type { Changes } from "./changes.ts";
import type { Channel, Check, CheckSpec, Downtime, MaintenanceWindow, Millis, Project, UniqueField } from "./model.ts";
import { assertNever } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { deadlineAt, holdForDowntime } from "./alerting.ts";
import type { ProjectChange } from "./project-changes.ts";
import type { ShardSnapshot } from "./shard-state.ts";
import type { CheckQuery, PingCommand, ShardCommand, ShardPingResult, ShardResultOf } from "./commands.ts";
import type { CheckImport, ImportedPing, ImportResult } from "./check-import.ts";
import { ShardCore } from "./shard-core.ts";
import { acknowledgeCheck, createCheck, deleteCheck, importCheck, pauseCheck, resumeCheck, updateCheck } from "./shard-checks.ts";
import { addMaintenance, maintenanceDue, muteProject, removeMaintenance } from "./shard-maintenance.ts";
import { importPings, ping } from "./shard-pings.ts";
import { addChannel, changeProject, createProject, removeChannel, updateChannel } from "./shard-projects.ts";

export type ShardOptions = {
  /** Returns a fresh random uuid; injected so that replays are deterministic. */
  readonly newId: () => string;
  /** The instant the shard starts at (its wheel starts there). */
  readonly now: Millis;
};

/**
 * The shard's one entry (`apply`) and its reads. Its commands live by subject: checks (shard-checks.ts),
 * pings (shard-pings.ts), projects and channels (shard-projects.ts), project mutes and maintenance windows
 * (shard-maintenance.ts); how a step is stored and notified is shard-core.ts.
 */
export class Shard {
  readonly #core: ShardCore;

  constructor(options: ShardOptions) {
    this.#core = new ShardCore(options.newId, options.now);
  }

  // ---- loading (no changes recorded) ----

  /** Loads a stored project with its channels and checks, and arms their deadlines. */
  load(project: Project, channels: readonly Channel[], checks: readonly Check[]): void {
    const core = this.#core;
    core.state.putProject(project);
    core.state.setChannels(project.id, channels);
    core.maintenance.arm(project, core.startedAt); // a window already running mutes through muteOf all the same
    for (const loaded of checks) {
      const check = core.state.compact(loaded);
      core.state.putCheck(check);
      core.dependents.replace(check.uuid, undefined, check.dependsOn);
      const at = deadlineAt(check);
      if (at !== null) core.wheel.set(check.uuid, at); // a loaded check is not in the wheel yet: nothing to delete
      core.lastAt = Math.max(
        core.lastAt,
        check.lastPingAt ?? -Infinity,
        check.lastStartAt ?? -Infinity,
        check.alert?.downSinceAt ?? -Infinity,
      );
    }
  }

  /** Returns the whole state (projects, channels, checks), sorted for stable comparison. */
  snapshot(): ShardSnapshot {
    return this.#core.state.snapshot();
  }

  /** Number of checks. */
  get checkCount(): number {
    return this.#core.state.checkCount;
  }

  /** Yields [uuid, projectId, badgeKey] of every check, unsorted (the pool's routing directory). */
  routes(): Generator<[string, string, string]> {
    return this.#core.state.routes();
  }

  /** Yields [uuid, push token] of every check that has one (the pool's push token directory). */
  pushTokens(): Generator<[string, string]> {
    return this.#core.state.pushTokens();
  }

  /** Returns how many notifications the changes not yet taken hold (a host commits those without delay). */
  pendingNotifications(): number {
    return this.#core.changes.notifications;
  }

  /** Returns and clears what the commands since the last call want stored. */
  takeChanges(): Changes {
    return this.#core.changes.take();
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
    const core = this.#core;
    const at = command.kind === "ping" ? command.ping.at : command.at;
    if (at >= core.lastAt) {
      core.lastAt = at;
      return command;
    }
    if (command.kind === "ping") return { ...command, ping: { ...command.ping, at: core.lastAt } };
    return { ...command, at: core.lastAt };
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

  // ---- projects and channels (shard-projects.ts, shard-maintenance.ts) ----

  /** Adds a new project (ids and keys chosen by the caller). */
  createProject(project: Project, _at: Millis): Project {
    return createProject(this.#core, project);
  }

  /** Returns the projects of this shard. */
  projects(): Project[] {
    return this.#core.state.projects();
  }

  /** Changes the project record alone: no check's state or notice moves (a new escalation policy re-plans its down checks). */
  changeProject(projectId: string, change: ProjectChange, at: Millis): Outcome<Project> {
    return changeProject(this.#core, projectId, change, at);
  }

  /** Sets a project's mute until `untilAt` (null ends it), at `at`. */
  muteProject(projectId: string, untilAt: Millis | null, at: Millis): Outcome<Project> {
    return muteProject(this.#core, projectId, untilAt, at);
  }

  /** Adds (or replaces, by id) a recurring maintenance window of a project. */
  addMaintenance(projectId: string, window: MaintenanceWindow, at: Millis): Outcome<Project> {
    return addMaintenance(this.#core, projectId, window, at);
  }

  /** Removes a maintenance window; a check its mute held is notified at once. */
  removeMaintenance(projectId: string, windowId: string, at: Millis): Outcome<Project> {
    return removeMaintenance(this.#core, projectId, windowId, at);
  }

  /** Adds a channel to a project. */
  addChannel(channel: Channel, _at: Millis): Outcome<Channel> {
    return addChannel(this.#core, channel);
  }

  /** Removes a channel from a project and from every check and escalation policy naming it. */
  removeChannel(projectId: string, channelId: string, _at: Millis): Outcome<Channel> {
    return removeChannel(this.#core, projectId, channelId);
  }

  /** Replaces a channel's name and value, keeping its id, kind and creation time. */
  updateChannel(
    projectId: string,
    channelId: string,
    change: Pick<Channel, "name" | "value" | "newChecks" | "everyFailure">,
    _at: Millis,
  ): Outcome<Channel> {
    return updateChannel(this.#core, projectId, channelId, change);
  }

  /** Returns a project's channels in creation order. */
  channels(projectId: string): Channel[] {
    return [...this.#core.state.channels(projectId)];
  }

  // ---- checks (shard-checks.ts) ----

  /** Returns the project's checks, filtered by exact slug and by tags (each must be carried). */
  listChecks(projectId: string, query: CheckQuery): Check[] {
    return this.#core.state.listChecks(projectId, query);
  }

  /** Returns a check of the project: not_found when unknown, forbidden when another project owns it. */
  getCheck(projectId: string, uuid: string): Outcome<Check> {
    return this.#core.check(projectId, uuid);
  }

  /** Returns the check uuids of a project (for lookups the host does, such as unique_key). */
  checkUuids(projectId: string): string[] {
    return this.#core.state.checkUuids(projectId);
  }

  /** Creates a check, or with `unique` updates the first check matching on those fields. */
  createCheck(
    projectId: string,
    spec: CheckSpec,
    unique: readonly UniqueField[],
    at: Millis,
    uuid?: string,
  ): Outcome<{ check: Check; created: boolean }> {
    return createCheck(this.#core, projectId, spec, unique, at, uuid);
  }

  /** Updates the given fields of a check; status and pings are never changed by an update. */
  updateCheck(projectId: string, uuid: string, spec: CheckSpec, at: Millis): Outcome<Check> {
    return updateCheck(this.#core, projectId, uuid, spec, at);
  }

  /** Brings a check over from another instance, or brings one already here up to date. */
  importCheck(projectId: string, imported: CheckImport, at: Millis): Outcome<{ check: Check; result: ImportResult }> {
    return importCheck(this.#core, projectId, imported, at);
  }

  /** Logs past pings of an imported check as they were numbered; returns how many. */
  importPings(projectId: string, uuid: string, pings: readonly ImportedPing[], _at: Millis): Outcome<number> {
    return importPings(this.#core, projectId, uuid, pings);
  }

  /** Pauses a check (a no-op when already paused). */
  pauseCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    return pauseCheck(this.#core, projectId, uuid, at);
  }

  /** Resumes a paused check; not_paused otherwise. */
  resumeCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    return resumeCheck(this.#core, projectId, uuid, at);
  }

  /** Acknowledges a down check's outage; not_down when it is not down (by `at`). */
  acknowledgeCheck(projectId: string, uuid: string, by: string, at: Millis): Outcome<Check> {
    return acknowledgeCheck(this.#core, projectId, uuid, by, at);
  }

  /** Deletes a check; returns it as it was, with no channels (the reference's answer). */
  deleteCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    return deleteCheck(this.#core, projectId, uuid, at);
  }

  // ---- pings and deadlines ----

  /** Applies one ping: finds (or creates) the check, classifies, steps and logs it (shard-pings.ts). */
  ping(command: PingCommand): Outcome<ShardPingResult> {
    return ping(this.#core, command);
  }

  /** The earliest instant an advance has something to apply at (a deadline, a reminder), or null when none waits. */
  nextDueAt(): Millis | null {
    return this.#core.wheel.nextDueAt();
  }

  /** Applies every deadline due at or before `now`, each at its own due time, earliest first. */
  advance(now: Millis): void {
    const core = this.#core;
    // The wheel answers earliest first; a check whose step makes it due again by `now` (an open run that
    // outlived its grace after a late deadline) is set in the past and comes back in the next round.
    for (let due = core.wheel.advance(now); due.length > 0; due = core.wheel.advance(now)) {
      for (const uuid of due) {
        const projectId = core.maintenance.projectOf(uuid);
        if (projectId !== null) {
          maintenanceDue(core, projectId, now);
          continue;
        }
        const check = core.state.check(uuid);
        const current = check ? deadlineAt(check) : null;
        if (!check || current === null) continue;
        if (current > now) {
          core.wheel.set(uuid, current);
          continue;
        }
        const next = deadlineAt(core.fire(check, current, false));
        if (next !== null && next > current) core.wheel.set(uuid, next); // settled otherwise: never re-fire an instant
      }
    }
  }

  /**
   * Holds every check whose deadline fell in hcd's own `downtime` (engine/alerting.ts holdForDowntime):
   * it is judged once its grace has passed since the downtime's end. Returns how many it holds.
   */
  holdForDowntime(downtime: Downtime, _at: Millis): number {
    const core = this.#core;
    let held = 0;
    for (const project of core.state.projects()) {
      for (const uuid of core.state.checkUuids(project.id)) {
        const check = core.state.check(uuid);
        const holding = check === undefined ? null : holdForDowntime(check, downtime);
        if (holding === null) continue;
        core.store(holding);
        held++;
      }
    }
    return held;
  }
}
