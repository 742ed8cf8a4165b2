// The replicated directory's key layout: `p.<partition>.<project id>` → the project record as JSON,
// `c.<partition>.<project id>.<check uuid>` → its badge key, then "\n" and its Uptime Kuma push token when
// it has one; secrets only in values, never in keys.
import type { Project } from "../engine/model.ts";

// A partition's owner is the only writer of its keys, and `p.<partition>.>` / `c.<partition>.>` list what
// it wrote; a check's key names its project, so a deletion marker says which check of which project went.
// KV keys allow [-/_=.a-zA-Z0-9]: an id with any other character goes in as "_" + its base64url, which no
// id written as it is starts with, so every id has exactly one token and every token one id.

/** What one key names. */
export type DirectoryKey =
  | { readonly kind: "project"; readonly partition: number; readonly projectId: string }
  | { readonly kind: "check"; readonly partition: number; readonly projectId: string; readonly uuid: string };

const PLAIN = /^[A-Za-z0-9-]+$/;
const ENCODED = /^_[A-Za-z0-9_-]*$/;

/** An id as one key token. */
export function idToken(id: string): string {
  return PLAIN.test(id) ? id : `_${Buffer.from(id, "utf8").toString("base64url")}`;
}

/** The id a key token stands for, or null when the token is not one idToken makes. */
export function tokenId(token: string): string | null {
  if (PLAIN.test(token)) return token;
  if (!ENCODED.test(token)) return null;
  const id = Buffer.from(token.slice(1), "base64url").toString("utf8");
  return idToken(id) === token ? id : null; // exactly one token per id
}

export function projectKey(partition: number, projectId: string): string {
  return `p.${partition}.${idToken(projectId)}`;
}

export function checkKey(partition: number, projectId: string, uuid: string): string {
  return `c.${partition}.${idToken(projectId)}.${idToken(uuid)}`;
}

/** The key filters of everything one partition wrote: its projects, its checks. */
export function partitionFilters(partition: number): { projects: string; checks: string } {
  return { projects: `p.${partition}.>`, checks: `c.${partition}.>` };
}

/** What a key names, or null for a key not in this layout. */
export function parseKey(key: string): DirectoryKey | null {
  const parts = key.split(".");
  const partition = parts.length >= 3 && /^(0|[1-9][0-9]{0,9})$/.test(parts[1]) ? Number(parts[1]) : -1;
  if (partition < 0) return null;
  const projectId = tokenId(parts[2]);
  if (projectId === null) return null;
  if (parts[0] === "p" && parts.length === 3) return { kind: "project", partition, projectId };
  if (parts[0] !== "c" || parts.length !== 4) return null;
  const uuid = tokenId(parts[3]);
  return uuid === null ? null : { kind: "check", partition, projectId, uuid };
}

const utf8 = new TextEncoder();
const text = new TextDecoder("utf-8", { fatal: true });

export function encodeProject(project: Project): Uint8Array {
  return utf8.encode(JSON.stringify(project));
}

const STRINGS = ["id", "name", "apiKey", "apiKeyReadonly", "pingKey", "badgeKey"] as const;
const NUMBERS = ["checkLimit", "pingLogLimit", "pingBodyLimit", "createdAt"] as const;

/** The project a value holds, or null when it is not a project record. */
export function decodeProject(value: Uint8Array): Project | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.decode(value));
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const record = parsed as Record<string, unknown>;
  if (!STRINGS.every((field) => typeof record[field] === "string")) return null;
  if (!NUMBERS.every((field) => typeof record[field] === "number")) return null;
  const muted = record.mutedUntilAt;
  if (muted !== undefined && muted !== null && typeof muted !== "number") return null;
  return parsed as Project;
}

export function encodeBadgeKey(badgeKey: string): Uint8Array {
  return utf8.encode(badgeKey);
}

/** The badge key a check's value holds, or null when it is not UTF-8 text. */
export function decodeBadgeKey(value: Uint8Array): string | null {
  try {
    return text.decode(value);
  } catch {
    return null;
  }
}

/** A check's value: its badge key, and its push token when it has one (a value without one is the badge key's alone). */
export function encodeCheckValue(badgeKey: string, pushToken: string | undefined): Uint8Array {
  return utf8.encode(pushToken === undefined ? badgeKey : `${badgeKey}\n${pushToken}`);
}

/** The badge key and push token a check's value holds, or null when it is not UTF-8 text. */
export function decodeCheckValue(value: Uint8Array): { badgeKey: string; pushToken: string | undefined } | null {
  const text = decodeBadgeKey(value);
  if (text === null) return null;
  const cut = text.indexOf("\n");
  return cut === -1 ? { badgeKey: text, pushToken: undefined } : { badgeKey: text.slice(0, cut), pushToken: text.slice(cut + 1) };
}
