// What a shard holds in memory, indexed the ways its commands look things up: projects (by id and by ping
// key), each project's channels and checks, and checks by uuid. No rules live here: the Shard decides what
// changes; this keeps the indexes in step and answers lookups.
import type { Channel, Check, CheckSpec, EscalationStep, Project, UniqueField, Writable } from "./model.ts";
import { checkWith, tagsOf } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { invalid, ok } from "./outcome.ts";
import type { CheckQuery } from "./commands.ts";

/** Snapshot of a shard's whole state, for replay comparisons and tests. */
export type ShardSnapshot = { readonly projects: Project[]; readonly channels: Channel[]; readonly checks: Check[] };

const NO_CHANNELS: readonly string[] = Object.freeze([]);

export class ShardState {
  readonly #projects = new Map<string, Project>();
  readonly #pingKeys = new Map<string, string>(); // ping key → project id
  readonly #channels = new Map<string, Channel[]>(); // project id → channels
  readonly #checks = new Map<string, Check>(); // uuid → check
  readonly #byProject = new Map<string, Set<string>>(); // project id → check uuids
  readonly #strings = new Map<string, string>(); // interned low-variety strings of loaded checks

  // ---- projects and channels ----

  /** Stores a project (new, or changed); a new one starts with no channels and no checks. */
  putProject(project: Project): void {
    const before = this.#projects.get(project.id);
    // a ping key that changed (a deleted project's is cleared) names the project no more
    if (before !== undefined && before.pingKey !== project.pingKey) this.#pingKeys.delete(before.pingKey);
    this.#projects.set(project.id, project);
    if (project.pingKey !== "") this.#pingKeys.set(project.pingKey, project.id);
    if (!this.#byProject.has(project.id)) this.#byProject.set(project.id, new Set());
    if (!this.#channels.has(project.id)) this.#channels.set(project.id, []);
  }

  project(id: string): Project | undefined {
    return this.#projects.get(id);
  }

  projectByPingKey(pingKey: string): Project | undefined {
    const id = this.#pingKeys.get(pingKey);
    return id === undefined ? undefined : this.#projects.get(id);
  }

  projects(): Project[] {
    return [...this.#projects.values()];
  }

  /** Sets a loaded project's channels. */
  setChannels(projectId: string, channels: readonly Channel[]): void {
    this.#channels.set(projectId, [...channels]);
  }

  /** Adds a channel to its project; false when the project is unknown. */
  addChannel(channel: Channel): boolean {
    const list = this.#channels.get(channel.projectId);
    if (!list) return false;
    list.push(channel);
    return true;
  }

  /** Removes a channel from its project's list; returns it, or undefined when the project has no such channel. */
  removeChannel(projectId: string, channelId: string): Channel | undefined {
    const list = this.#channels.get(projectId);
    const i = list?.findIndex((c) => c.id === channelId) ?? -1;
    if (list === undefined || i < 0) return undefined;
    return list.splice(i, 1)[0];
  }

  /** Puts a channel in the place of the one with its id in its project (creation order kept); false when there is none. */
  replaceChannel(channel: Channel): boolean {
    const list = this.#channels.get(channel.projectId);
    const i = list?.findIndex((c) => c.id === channel.id) ?? -1;
    if (list === undefined || i < 0) return false;
    list[i] = channel;
    return true;
  }

  /** Returns a project's channels in creation order (the shard's own list: never changed by the caller). */
  channels(projectId: string): readonly Channel[] {
    return this.#channels.get(projectId) ?? [];
  }

  /** Resolves channel references: undefined = leave unchanged; ids or names must each match exactly one. */
  resolveChannels(projectId: string, refs: CheckSpec["channels"]): Outcome<string[] | undefined> {
    if (refs === undefined) return ok(undefined);
    const channels = this.channels(projectId);
    if ("all" in refs) return ok(channels.map((c) => c.id).sort());
    const ids = new Set<string>();
    for (const ref of refs.refs) {
      if (ref === "") return invalid("channels", "empty channel identifier");
      const byId = channels.filter((c) => c.id === ref);
      const byName = channels.filter((c) => c.name === ref);
      const found = byId.length === 1 ? byId : byName;
      if (found.length === 0) return invalid("channels", `invalid channel identifier: ${ref}`);
      if (found.length > 1) return invalid("channels", `non-unique channel identifier: ${ref}`);
      ids.add(found[0].id);
    }
    return ok([...ids].sort());
  }

  /**
   * Resolves an escalation policy's channel references (as resolveChannels, the field named "escalation"):
   * undefined = leave unchanged, null = the project's policy.
   */
  resolveEscalation(projectId: string, steps: CheckSpec["escalation"]): Outcome<readonly EscalationStep[] | null | undefined> {
    if (steps === undefined || steps === null) return ok(steps);
    const resolved: EscalationStep[] = [];
    for (const step of steps) {
      const channels = this.resolveChannels(projectId, step.channels);
      if (!channels.ok) return channels.failure.code === "invalid" ? invalid("escalation", channels.failure.reason) : channels;
      resolved.push({ afterMs: step.afterMs, channels: channels.value ?? [] });
    }
    return ok(resolved);
  }

  // ---- checks ----

  check(uuid: string): Check | undefined {
    return this.#checks.get(uuid);
  }

  /** Stores a check (new, or changed) under its uuid and its project. */
  putCheck(check: Check): void {
    const known = this.#checks.size;
    this.#checks.set(check.uuid, check);
    if (this.#checks.size === known) return; // a changed check: its project's index has it already
    let uuids = this.#byProject.get(check.projectId);
    if (!uuids) this.#byProject.set(check.projectId, (uuids = new Set()));
    uuids.add(check.uuid);
  }

  deleteCheck(projectId: string, uuid: string): void {
    this.#checks.delete(uuid);
    this.#byProject.get(projectId)?.delete(uuid);
  }

  /** Number of checks in all. */
  get checkCount(): number {
    return this.#checks.size;
  }

  /** Number of checks of a project. */
  checkCountOf(projectId: string): number {
    return this.#byProject.get(projectId)?.size ?? 0;
  }

  /** Returns the check uuids of a project. */
  checkUuids(projectId: string): string[] {
    return [...(this.#byProject.get(projectId) ?? [])];
  }

  /** Returns the project's checks, oldest first, filtered by exact slug and by tags (each must be carried). */
  listChecks(projectId: string, query: CheckQuery): Check[] {
    const out: Check[] = [];
    for (const uuid of this.#byProject.get(projectId) ?? []) {
      const check = this.#checks.get(uuid);
      if (!check) continue;
      if (query.slug !== undefined && check.slug !== query.slug) continue;
      if (query.tags.length > 0) {
        const tags = new Set(tagsOf(check.tags));
        if (!query.tags.every((t) => tags.has(t))) continue;
      }
      out.push(check);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || (a.uuid < b.uuid ? -1 : 1));
  }

  /** Returns the first check equal to the spec on every `unique` field, when all of them are given. */
  findUnique(projectId: string, spec: CheckSpec, unique: readonly UniqueField[]): Check | null {
    if (unique.length === 0) return null;
    const wanted: ((c: Check) => boolean)[] = [];
    for (const field of unique) {
      switch (field) {
        case "name":
          if (spec.name === undefined) return null;
          wanted.push((c) => c.name === spec.name);
          break;
        case "slug":
          if (spec.slug === undefined) return null;
          wanted.push((c) => c.slug === spec.slug);
          break;
        case "tags":
          if (spec.tags === undefined) return null;
          wanted.push((c) => c.tags === spec.tags);
          break;
        case "timeout":
          if (spec.timeoutMs === undefined) return null;
          wanted.push((c) => c.timeoutMs === spec.timeoutMs);
          break;
        case "grace":
          if (spec.graceMs === undefined) return null;
          wanted.push((c) => c.graceMs === spec.graceMs);
          break;
      }
    }
    return this.listChecks(projectId, { tags: [] }).find((c) => wanted.every((w) => w(c))) ?? null;
  }

  /** Yields [uuid, projectId, badgeKey] of every check, unsorted (the pool's routing directory). */
  *routes(): Generator<[string, string, string]> {
    for (const check of this.#checks.values()) yield [check.uuid, check.projectId, check.badgeKey];
  }

  /** Yields [uuid, push token] of every check that has one. */
  *pushTokens(): Generator<[string, string]> {
    for (const check of this.#checks.values()) if (check.pushToken !== undefined) yield [check.uuid, check.pushToken];
  }

  /** Returns the whole state (projects, channels, checks), sorted for stable comparison. */
  snapshot(): ShardSnapshot {
    const byId =
      <T>(key: (x: T) => string) =>
      (a: T, b: T) =>
        key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
    return {
      projects: [...this.#projects.values()].sort(byId((p) => p.id)),
      channels: [...this.#channels.values()].flat().sort(byId((c) => c.id)),
      checks: [...this.#checks.values()].sort(byId((c) => c.uuid)),
    };
  }

  /**
   * Returns a loaded check that shares its low-variety strings (project id, zone, schedule, enums) and
   * the empty channel list with the others: a store decodes a fresh copy of each per record, and at a
   * million checks those copies are a fifth of the memory. Its other strings are copied (ownCopy): as
   * decoded, each is a slice of one string of all the record's text, which the check would keep alive.
   */
  compact(check: Check): Check {
    // a copy of one shape (checkWith), then field by field: measured, applying the changes as an object
    // (Object.assign) took a third of a loaded check's time at a million checks
    const copy: Writable<Check> = checkWith(check);
    copy.uuid = ownCopy(check.uuid);
    copy.projectId = this.#shared(check.projectId);
    copy.badgeKey = ownCopy(check.badgeKey);
    copy.name = ownCopy(check.name);
    copy.slug = ownCopy(check.slug);
    copy.desc = ownCopy(check.desc);
    copy.tz = this.#shared(check.tz);
    copy.schedule = this.#shared(check.schedule);
    copy.kind = this.#shared(check.kind);
    copy.status = this.#shared(check.status);
    copy.methods = this.#shared(check.methods);
    copy.tags = this.#shared(check.tags);
    copy.startKw = ownCopy(check.startKw);
    copy.successKw = ownCopy(check.successKw);
    copy.failureKw = ownCopy(check.failureKw);
    copy.lastStartRid = check.lastStartRid === null ? null : ownCopy(check.lastStartRid);
    copy.channels = check.channels.length === 0 ? NO_CHANNELS : check.channels.map((id) => ownCopy(id));
    return copy;
  }

  /** Returns `text` as the one copy the loaded checks share (long texts: a copy of their own). */
  #shared<T extends string>(text: T): T {
    if (text.length > 64) return ownCopy(text);
    const known = this.#strings.get(text);
    if (known !== undefined) return known as T;
    const copy = ownCopy(text);
    if (this.#strings.size < 10_000) this.#strings.set(copy, copy);
    return copy;
  }
}

/**
 * Returns `text`, equal, in a string of its own. V8 makes a substring of 13 or more characters a view
 * into the string it was cut from, and keeps that one alive with it: the store's decoder (msgpackr) cuts
 * each record's strings from one string of all the record's text (measured: a loaded check kept about
 * 200 bytes of it besides its uuid, badge key and name). Shorter substrings are copies already.
 */
export function ownCopy<T extends string>(text: T): T {
  if (text.length < 13) return text;
  const copy = text.slice(0, 1) + text.slice(1); // a pair of strings, joined only when read
  copy.charCodeAt(0); // joins them into one new string (the garbage collector then drops the pair)
  return copy as T; // equal to text
}
