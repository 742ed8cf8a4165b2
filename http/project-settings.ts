// Managing a project beyond its creation (admin API and dashboard alike): a new name, an API key created
// anew or revoked, and deleting the project: its checks (with their logs) and integrations (with their
// waiting notifications) first, then its record becomes a tombstone without keys that names nothing.
import { randomBytes } from "node:crypto";
import type { Millis, Project } from "../engine/model.ts";
import { LIMITS } from "../engine/model.ts";
import type { ApiKeyKind, ProjectLimits } from "../engine/project-changes.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, invalid, ok } from "../engine/outcome.ts";
import type { Pool } from "../host/pool-api.ts";
import type { JsonObject } from "./body.ts";

/** The keys by the names the admin API's URLs give them. */
export const API_KEY_KINDS: Readonly<Record<string, ApiKeyKind>> = { "read-write": "apiKey", "read-only": "apiKeyReadonly" };

/** A project's new name from `{"name": str}`: not blank, at most the name limit. */
export function projectNameOf(body: JsonObject): Outcome<string> {
  const name = body.name;
  if (typeof name !== "string") return invalid("name", "is required and must be a string");
  if (name.trim() === "") return invalid("name", "must not be blank");
  if ([...name].length > LIMITS.nameMaxChars) return invalid("name", `is too long (at most ${LIMITS.nameMaxChars} characters)`);
  return ok(name.trim());
}

/**
 * A project's edit from `{"name": str, "check_limit"?, "ping_log_limit"?, "ping_body_limit"?}`: the name as
 * projectNameOf checks it, each limit in the range a new project's takes (http/admin-input.ts projectInputOf).
 */
export function projectEditOf(body: JsonObject): Outcome<{ name: string; limits: ProjectLimits }> {
  const name = projectNameOf(body);
  if (!name.ok) return name;
  const limits: { -readonly [K in keyof ProjectLimits]: ProjectLimits[K] } = {};
  for (const [field, key, min, max] of [
    ["check_limit", "checkLimit", 0, 1_000_000],
    ["ping_log_limit", "pingLogLimit", 1, 1_000_000],
    ["ping_body_limit", "pingBodyLimit", 0, 10_000_000],
  ] as const) {
    if (!Object.hasOwn(body, field)) continue;
    const value = body[field];
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid(field, "is not an integer");
    if (value < min || value > max) return invalid(field, `must be from ${min} to ${max}`);
    limits[key] = value;
  }
  return ok({ name: name.value, limits });
}

/** A fresh API key, as the pool makes them at a project's creation (24 random bytes, base64url). */
export function newApiKey(): string {
  return randomBytes(24).toString("base64url");
}

/** Creates the key anew (the old one stops working at once) or revokes it (value ""). */
export function setApiKey(pool: Pool, projectId: string, key: ApiKeyKind, value: string, at: Millis): Promise<Outcome<Project>> {
  return pool.changeProject(projectId, { kind: "setKey", key, value }, at);
}

/** Deletes the project: every check and integration, then its record (keys, status pages, maintenance windows). */
export async function deleteProject(pool: Pool, projectId: string, at: Millis): Promise<Outcome<Project>> {
  if (pool.listProjects().every((p) => p.id !== projectId)) return fail({ code: "not_found", what: "project" });
  for (const check of await pool.listChecks(projectId, { tags: [] })) {
    const deleted = await pool.deleteCheck(projectId, check.uuid, at);
    if (!deleted.ok && deleted.failure.code !== "not_found") return deleted;
  }
  for (const channel of await pool.listChannels(projectId)) {
    const removed = await pool.removeChannel(projectId, channel.id, at);
    if (!removed.ok && removed.failure.code !== "not_found") return removed;
  }
  return pool.changeProject(projectId, { kind: "delete", at }, at);
}
