// The projects and their keys, on the main thread: who an API key is, and which project a ping key or a
// badge key names. Keys are looked up by digest and compared in constant time.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Project } from "../engine/model.ts";
import type { Caller } from "./pool-api.ts";

/** Returns a key's digest: the maps are keyed by digest, so lookups leak nothing about keys. */
const digest = (key: string) => createHash("sha256").update(key).digest("base64");

export class ProjectKeys {
  readonly #projects = new Map<string, Project>();
  readonly #apiKeys = new Map<string, { projectId: string; readonly: boolean; key: string }>();
  readonly #pingKeys = new Map<string, string>();
  readonly #badgeKeys = new Map<string, string>();

  /** Learns projects (new, or again after a change): their keys now name them. */
  learn(projects: readonly Project[]): void {
    for (const project of projects) {
      this.forget(project.id); // a key created anew or revoked names the project no more
      if (project.deletedAt !== undefined) continue; // a deleted project's tombstone names nothing
      this.#projects.set(project.id, project);
      // a revoked key is "": never accepted (authenticate refuses it first), so it is not kept
      if (project.apiKey !== "") this.#apiKeys.set(digest(project.apiKey), { projectId: project.id, readonly: false, key: project.apiKey });
      if (project.apiKeyReadonly !== "") this.#apiKeys.set(digest(project.apiKeyReadonly), { projectId: project.id, readonly: true, key: project.apiKeyReadonly });
      this.#pingKeys.set(project.pingKey, project.id);
      this.#badgeKeys.set(project.badgeKey, project.id);
    }
  }

  /** Forgets a project: its keys name nothing any more. False when unknown. */
  forget(projectId: string): boolean {
    const project = this.#projects.get(projectId);
    if (!project) return false;
    this.#projects.delete(projectId);
    for (const key of [project.apiKey, project.apiKeyReadonly]) {
      if (this.#apiKeys.get(digest(key))?.projectId === projectId) this.#apiKeys.delete(digest(key));
    }
    if (this.#pingKeys.get(project.pingKey) === projectId) this.#pingKeys.delete(project.pingKey);
    if (this.#badgeKeys.get(project.badgeKey) === projectId) this.#badgeKeys.delete(project.badgeKey);
    return true;
  }

  /** Returns the caller for an API key (read-write or read-only), or null. */
  authenticate(apiKey: string): Caller | null {
    if (apiKey === "") return null;
    const entry = this.#apiKeys.get(digest(apiKey));
    if (!entry) return null;
    const a = Buffer.from(entry.key), b = Buffer.from(apiKey);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
    const project = this.#projects.get(entry.projectId);
    return project ? { project, readonly: entry.readonly } : null;
  }

  byId(id: string | undefined): Project | null {
    return id === undefined ? null : (this.#projects.get(id) ?? null);
  }

  byPingKey(pingKey: string): Project | null {
    return this.byId(this.#pingKeys.get(pingKey));
  }

  byBadgeKey(badgeKey: string): Project | null {
    return this.byId(this.#badgeKeys.get(badgeKey));
  }

  /** Every project, oldest first. */
  list(): Project[] {
    return [...this.#projects.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }
}
