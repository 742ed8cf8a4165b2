// The projects and their keys, on the main thread: who an API key is, and which project a ping key or a
// badge key names. Keys are looked up by digest and compared in constant time; keys brought over from
// Healthchecks in its hashed form by their first 8 characters, then their HMAC (as hc/accounts/models.py does).
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Project } from "../engine/model.ts";
import type { Caller } from "./pool-api.ts";

/** Returns a key's digest: the maps are keyed by digest, so lookups leak nothing about keys. */
const digest = (key: string) => createHash("sha256").update(key).digest("base64");

export class ProjectKeys {
  readonly #projects = new Map<string, Project>();
  readonly #apiKeys = new Map<string, { projectId: string; readonly: boolean; key: string }>();
  readonly #pingKeys = new Map<string, string>();
  readonly #badgeKeys = new Map<string, string>();
  // Healthchecks' hashed keys by the 8 characters after "hcw_" / "hcr_": its hex HMAC and the secret it is keyed by
  readonly #hashedKeys = new Map<string, { projectId: string; readonly: boolean; hmac: string; secretKey: string }[]>();

  /** Learns projects (new, or again after a change): their keys now name them. */
  learn(projects: readonly Project[]): void {
    for (const project of projects) {
      this.forget(project.id); // a key created anew or revoked names the project no more
      if (project.deletedAt !== undefined) continue; // a deleted project's tombstone names nothing
      this.#projects.set(project.id, project);
      // a revoked key is "": never accepted (authenticate refuses it first), so it is not kept
      if (project.apiKey !== "") this.#apiKeys.set(digest(project.apiKey), { projectId: project.id, readonly: false, key: project.apiKey });
      if (project.apiKeyReadonly !== "")
        this.#apiKeys.set(digest(project.apiKeyReadonly), { projectId: project.id, readonly: true, key: project.apiKeyReadonly });
      this.#pingKeys.set(project.pingKey, project.id);
      this.#badgeKeys.set(project.badgeKey, project.id);
      this.#learnHashed(project);
    }
  }

  #learnHashed(project: Project): void {
    const hashed = project.hashedApiKeys;
    if (hashed === undefined) return;
    for (const [stored, readonly] of [
      [hashed.apiKey, false],
      [hashed.apiKeyReadonly, true],
    ] as const) {
      const match = stored === null ? null : /^([^.]{8})\.([0-9a-f]{64})$/.exec(stored);
      if (match === null) continue;
      const entries = this.#hashedKeys.get(match[1]) ?? [];
      entries.push({ projectId: project.id, readonly, hmac: match[2], secretKey: hashed.secretKey });
      this.#hashedKeys.set(match[1], entries);
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
    for (const [prefix, entries] of this.#hashedKeys) {
      const left = entries.filter((entry) => entry.projectId !== projectId);
      if (left.length === 0) this.#hashedKeys.delete(prefix);
      else if (left.length < entries.length) this.#hashedKeys.set(prefix, left);
    }
    return true;
  }

  /** Returns the caller for an API key (read-write or read-only), or null. */
  authenticate(apiKey: string): Caller | null {
    if (apiKey === "") return null;
    const entry = this.#apiKeys.get(digest(apiKey));
    if (!entry) return this.#authenticateHashed(apiKey);
    const a = Buffer.from(entry.key),
      b = Buffer.from(apiKey);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
    const project = this.#projects.get(entry.projectId);
    return project ? { project, readonly: entry.readonly } : null;
  }

  /** A key in Healthchecks' "hcw_" / "hcr_" form, checked against the hashed keys brought over with its first 8 characters after the prefix. */
  #authenticateHashed(apiKey: string): Caller | null {
    const kind = apiKey.startsWith("hcw_") ? false : apiKey.startsWith("hcr_") ? true : null;
    if (kind === null || apiKey.length < 12) return null;
    for (const entry of this.#hashedKeys.get(apiKey.slice(4, 12)) ?? []) {
      if (entry.readonly !== kind) continue;
      const given = Buffer.from(createHmac("sha256", entry.secretKey).update(apiKey).digest("hex"));
      if (!timingSafeEqual(given, Buffer.from(entry.hmac))) continue;
      const project = this.#projects.get(entry.projectId);
      return project ? { project, readonly: entry.readonly } : null;
    }
    return null;
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
