// The lookups that route a request without asking a shard: an API key to its project and access, a ping
// key, a check's uuid or a badge key to the project (and check) it names. Over the main thread's directory
// (project keys: project-keys.ts; check uuids and badge keys: check-directory.ts); the single-node pool
// and a cluster node's replicated directory both extend it, each keeping the two up to date its own way.
import type { Project } from "../engine/model.ts";
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
}
