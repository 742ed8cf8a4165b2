// The lookups that route a request without asking a shard: an API key to its project and access, a ping
// key, a check's uuid or a badge key to the project (and check) it names. Over the main thread's directory
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
  }
}
