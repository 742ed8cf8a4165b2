// The lookups that route a request without asking a shard: an API key to its project and access, a ping
// key, a check's uuid, a badge key or an Uptime Kuma push token to the project (and check) it names. Over the main thread's directory
// (project keys: project-keys.ts; check uuids and badge keys: check-directory.ts); the single-node pool
// and a cluster node's replicated directory both extend it, each keeping the two up to date its own way.
import type { Project } from "../engine/model.ts";
import type { PackedChecks } from "./check-directory.ts";
import { CheckDirectory } from "./check-directory.ts";
import type { Caller } from "./pool-api.ts";
import { ProjectKeys } from "./project-keys.ts";

export class DirectoryLookups {
  protected readonly projects = new ProjectKeys();
  protected readonly checks = new CheckDirectory(); // check uuid → project id, check badge key → check uuid
  readonly #pushTokens = new Map<string, string>(); // Uptime Kuma push token → check uuid (few checks have one)
  readonly #tokenOf = new Map<string, string>(); // check uuid → its push token

  authenticate(apiKey: string): Caller | null {
    return this.projects.authenticate(apiKey);
  }

  projectById(id: string): Project | null {
    return this.projects.byId(id);
  }

  projectByPingKey(pingKey: string): Project | null {
    return this.projects.byPingKey(pingKey);
  }

  projectOfCheck(uuid: string): Project | null {
    return this.projects.byId(this.checks.projectOf(uuid));
  }

  projectByBadgeKey(badgeKey: string): Project | null {
    return this.projects.byBadgeKey(badgeKey);
  }

  checkByBadgeKey(badgeKey: string): { uuid: string; project: Project } | null {
    const uuid = this.checks.checkOfBadge(badgeKey);
    const project = uuid === undefined ? null : this.projectOfCheck(uuid);
    return uuid !== undefined && project ? { uuid, project } : null;
  }

  /** The check whose Uptime Kuma push token this is, with its project; null when none. */
  checkByPushToken(token: string): { uuid: string; project: Project } | null {
    const uuid = this.#pushTokens.get(token);
    const project = uuid === undefined ? null : this.projectOfCheck(uuid);
    return uuid !== undefined && project ? { uuid, project } : null;
  }

  /** The check that has this push token, if any (its uuid). */
  pushTokenHolder(token: string): string | undefined {
    return this.#pushTokens.get(token);
  }

  /** A check's push token, if it has one. */
  pushTokenOf(uuid: string): string | undefined {
    return this.#tokenOf.get(uuid);
  }

  listProjects(): Project[] {
    return this.projects.list();
  }

  /** Resolves once the lookups hold everything written before the call (this one: always). */
  catchUp(): Promise<void> {
    return Promise.resolve();
  }

  /** The id of the project owning a check uuid, if known. */
  projectIdOfCheck(uuid: string): string | undefined {
    return this.checks.projectOf(uuid);
  }

  // ---- updates, as the pool learns of them from its shards' answers ----

  learnProjects(projects: readonly Project[]): void {
    this.projects.learn(projects);
  }

  addChecks(packed: PackedChecks): void {
    this.checks.addPacked(packed);
  }

  addCheck(uuid: string, projectId: string, badgeKey: string): void {
    this.checks.add(uuid, projectId, badgeKey);
  }

  deleteCheck(uuid: string): void {
    this.checks.delete(uuid);
    this.putPushToken(uuid, undefined);
  }

  /** A check's push token is now `token` (undefined: it has none). */
  setPushToken(uuid: string, token: string | undefined): void {
    this.putPushToken(uuid, token);
  }

  /** The one place the push token maps change (a cluster node's copy calls it from the bucket). */
  protected putPushToken(uuid: string, token: string | undefined): void {
    const held = this.#tokenOf.get(uuid);
    if (held === token) return;
    if (held !== undefined && this.#pushTokens.get(held) === uuid) this.#pushTokens.delete(held);
    if (token === undefined) this.#tokenOf.delete(uuid);
    else {
      this.#tokenOf.set(uuid, token);
      this.#pushTokens.set(token, uuid);
    }
  }
}
