// Projects, channels and checks by project id: the live snapshot a shard restores from.
// No shard numbers in keys, so SHARDS may change between runs.
import type { Key } from "lmdb";
import type { Changes } from "../engine/changes.ts";
import type { Channel, Check, Project } from "../engine/model.ts";
import { ALL, prepare, under, valuesIn } from "./tables.ts";
import type { Put, Tables } from "./tables.ts";

const checkKey = (projectId: string, uuid: string): Key => [projectId, uuid];

/** Returns every stored project, ordered by id. */
export function loadProjects(tables: Tables): Project[] {
  return valuesIn<Project>(tables.projects, ALL);
}

/** Returns a project's channels, ordered by id. */
export function loadChannels(tables: Tables, projectId: string): Channel[] {
  return valuesIn<Channel>(tables.channels, under(projectId));
}

/** Returns a project's checks, ordered by uuid. */
export function loadChecks(tables: Tables, projectId: string): Check[] {
  return valuesIn<Check>(tables.checks, under(projectId));
}

/** Returns the writes that upsert projects, channels and checks. */
export function* snapshotPuts(tables: Tables, records: { projects: Project[]; channels: Channel[]; checks: Check[] }): Generator<Put> {
  for (const project of records.projects) yield prepare(tables.projects, [project.id], project);
  for (const channel of records.channels) yield prepare(tables.channels, [channel.projectId, channel.id], channel);
  for (const check of records.checks) yield prepare(tables.checks, checkKey(check.projectId, check.uuid), check);
}

/** Removes a check's row; call inside a write transaction. */
export function removeCheck(tables: Tables, projectId: string, uuid: string): void {
  tables.checks.removeSync(checkKey(projectId, uuid));
}

/** Removes a channel's row; call inside a write transaction. */
export function removeChannel(tables: Tables, projectId: string, id: string): void {
  tables.channels.removeSync([projectId, id]);
}

/**
 * The projects `accept` takes, with their channels and checks, as the tables hold them with `logged` (commits in
 * the log, not yet applied to the tables, oldest first) applied over them.
 */
export function loadDurable(
  tables: Tables,
  logged: readonly Changes[],
  accept: (projectId: string) => boolean,
): { project: Project; channels: Channel[]; checks: Check[] }[] {
  const projects = new Map<string, Project>();
  const channels = new Map<string, Map<string, Channel>>();
  const checks = new Map<string, Map<string, Check>>();
  const addProject = (project: Project) => {
    projects.set(project.id, project);
    if (!channels.has(project.id)) channels.set(project.id, new Map(loadChannels(tables, project.id).map((c) => [c.id, c])));
    if (!checks.has(project.id)) checks.set(project.id, new Map(loadChecks(tables, project.id).map((c) => [c.uuid, c])));
  };
  for (const project of loadProjects(tables)) if (accept(project.id)) addProject(project);
  for (const changes of logged) {
    for (const project of changes.projects) if (accept(project.id)) addProject(project);
    for (const channel of changes.channels) channels.get(channel.projectId)?.set(channel.id, channel);
    for (const check of changes.checks) checks.get(check.projectId)?.set(check.uuid, check);
    for (const { projectId, uuid } of changes.deletedChecks) checks.get(projectId)?.delete(uuid);
    for (const { projectId, id } of changes.deletedChannels ?? []) channels.get(projectId)?.delete(id);
  }
  return [...projects.values()].map((project) => ({
    project,
    channels: [...(channels.get(project.id)?.values() ?? [])],
    checks: [...(checks.get(project.id)?.values() ?? [])],
  }));
}
