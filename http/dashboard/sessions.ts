// Dashboard sessions: a random id in a cookie, everything else in this server-side map. What a session was
// opened with is checked again on every request, so a session never outlives it: the key (never in a
// cookie or URL), a digest of the admin token (a changed ADMIN_TOKEN ends its sessions), the user's session
// generation (a new password, the second factor on or off end every session opened before, on every node).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Millis } from "../../engine/model.ts";
import { HOUR } from "../../engine/model.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";
import { sessionKeyOf } from "../../host/session-key.ts";

/**
 * Who signed in: the admin token, a project API key (read-write or read-only, decided on each request),
 * or a user by email and password (their roles read from host/accounts.ts on each request).
 */
export type Principal =
  | { readonly kind: "admin"; readonly tokenHash: string }
  | { readonly kind: "key"; readonly apiKey: string }
  | { readonly kind: "user"; readonly userId: string; readonly generation: number };

/** Who is acting, as a record of changes names them: never a secret (a key is named, not shown). */
export type Actor =
  | { readonly kind: "admin" }
  | { readonly kind: "key"; readonly name: string }
  | { readonly kind: "user"; readonly email: string; readonly id: string };

export type Session = {
  readonly id: string;
  readonly principal: Principal;
  /** Sent back with every form; a POST without it is refused. */
  readonly csrf: string;
  expiresAt: Millis;
  /** When it was opened (shown on the account page; absent in sessions shared by an older node). */
  readonly openedAt?: Millis;
};

/** Idle lifetime: every request renews it. */
export const SESSION_IDLE_MS = 12 * HOUR;
/** Sessions kept at most; the oldest go first, so memory stays bounded whatever clients do. */
export const MAX_SESSIONS = 10_000;

export class SessionStore {
  // by the SHA-256 of the id (the key every store uses), oldest used first
  readonly #sessions = new BoundedMap<string, Session>(MAX_SESSIONS);

  /** Opens a session for `principal` at `at`. */
  open(principal: Principal, at: Millis): Session {
    const session: Session = { id: token(), principal, csrf: token(), expiresAt: at + SESSION_IDLE_MS, openedAt: at };
    this.#sessions.set(sessionKeyOf(session.id), session);
    return session;
  }

  /** Returns the live session with this id and renews it, or null (unknown or expired). */
  find(id: string | null, at: Millis): Session | null {
    if (id === null || id === "") return null;
    const key = sessionKeyOf(id);
    const session = this.#sessions.get(key);
    if (session === undefined) return null;
    if (session.expiresAt <= at) {
      this.#sessions.delete(key);
      return null;
    }
    session.expiresAt = at + SESSION_IDLE_MS;
    this.#sessions.touch(key);
    return session;
  }

  close(id: string): void {
    this.#sessions.delete(sessionKeyOf(id));
  }

  /** Ends the session kept under `key` (a removal heard from another node names the key, not the id). */
  closeKey(key: string): void {
    this.#sessions.delete(key);
  }

  /** True when a session with this id is held here (expired or not; nothing renewed). */
  has(id: string): boolean {
    return this.#sessions.has(sessionKeyOf(id));
  }

  /** The live sessions of a user, oldest first. */
  ofUser(userId: string, at: Millis): Session[] {
    const found: Session[] = [];
    for (const [, session] of this.#sessions.entries()) {
      if (session.principal.kind === "user" && session.principal.userId === userId && session.expiresAt > at) found.push(session);
    }
    return found.sort((a, b) => (a.openedAt ?? 0) - (b.openedAt ?? 0));
  }

  /** Holds a session read from the store (after a restart, or opened by another node), unless it has expired by `at`. */
  adopt(session: Session, at: Millis): void {
    if (session.expiresAt <= at) return;
    this.#sessions.set(sessionKeyOf(session.id), { ...session });
  }
}

/** The digest of the admin token an admin session keeps and is checked against (never the token itself). */
export function adminTokenHash(token: string): string {
  return createHash("sha256").update(`hcd admin session\0${token}`).digest("base64url");
}

/** Returns true when the form's CSRF token is the session's (constant-time). */
export function csrfMatches(session: Session, given: string | null): boolean {
  if (given === null) return false;
  const a = Buffer.from(session.csrf),
    b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A name for a session that can be shown and sent back in a form without giving its id away. */
export function sessionHandle(session: Session): string {
  return createHash("sha256").update(session.id).digest("base64url").slice(0, 16);
}

function token(): string {
  return randomBytes(32).toString("base64url");
}
