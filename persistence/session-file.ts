// A single node's dashboard sessions in DATA_DIR/sessions.json, so a restart signs nobody out: each kept
// under the SHA-256 of its id (the cookie), never the id itself, so the file opens no session; written whole
// (temporary file, synced, renamed) on every sign-in, sign-out and hourly renewal, before it is answered.
import { createHash } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file's name in DATA_DIR. */
export const SESSIONS_FILE = "sessions.json";

/** The key a session is kept under (here and in a cluster's bucket): the SHA-256 of its id, in hex. */
export function sessionKeyOf(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}

/** A session as the dashboard holds it (http/dashboard/sessions.ts's Session). */
export type SessionRecord = {
  readonly id: string;
  readonly principal: unknown;
  readonly csrf: string;
  readonly expiresAt: number;
  readonly openedAt?: number;
};
/** What is kept of it: everything but its id. */
type Kept = Omit<SessionRecord, "id">;

/** Sessions kept at most (the dashboard holds as many in memory); the soonest to expire go first. */
const MAX_KEPT = 10_000;

/** `R`: the session's shape as its user (the dashboard) has it. */
export class SessionFile<R extends SessionRecord = SessionRecord> {
  readonly #path: string;
  readonly #dir: string;
  readonly #idleMs: number;
  readonly #kept = new Map<string, Kept>();

  /** Reads DATA_DIR's sessions (none when the file is missing or unreadable: its users sign in again). */
  constructor(dataDir: string, idleMs: number) {
    this.#dir = dataDir;
    this.#path = join(dataDir, SESSIONS_FILE);
    this.#idleMs = idleMs;
    if (!existsSync(this.#path)) return;
    try {
      const parsed = JSON.parse(readFileSync(this.#path, "utf8")) as { sessions?: Record<string, Kept> };
      for (const [key, kept] of Object.entries(parsed.sessions ?? {})) {
        if (/^[0-9a-f]{64}$/.test(key) && typeof kept?.csrf === "string" && typeof kept.expiresAt === "number") this.#kept.set(key, kept);
      }
    } catch {
      // a damaged file costs sign-ins, never the start
    }
  }

  /** Stores a session opened or renewed; returns once it is on disk. Expired ones are dropped meanwhile. */
  async put(session: R): Promise<void> {
    const { id, ...kept } = session;
    const now = session.expiresAt - this.#idleMs; // when it was opened or renewed: what has expired by then goes
    for (const [key, other] of this.#kept) if (other.expiresAt <= now) this.#kept.delete(key);
    this.#kept.set(sessionKeyOf(id), kept);
    if (this.#kept.size > MAX_KEPT) {
      const soonest = [...this.#kept].sort((a, b) => a[1].expiresAt - b[1].expiresAt).slice(0, this.#kept.size - MAX_KEPT);
      for (const [key] of soonest) this.#kept.delete(key);
    }
    this.#save();
  }

  /** Removes a session (signed out, or its user or key no longer opens it); returns once it is on disk. */
  async remove(id: string): Promise<void> {
    if (this.#kept.delete(sessionKeyOf(id))) this.#save();
  }

  /** The kept session whose id this is, or null. */
  async get(id: string): Promise<R | null> {
    const kept = this.#kept.get(sessionKeyOf(id));
    return kept === undefined ? null : ({ ...kept, id } as R);
  }

  /** A single node hears no other node's removals. */
  onRemoved(): void {}

  #save(): void {
    const temporary = `${this.#path}.tmp`;
    writeFileSync(temporary, JSON.stringify({ sessions: Object.fromEntries(this.#kept) }), { mode: 0o600 });
    for (const path of [temporary, this.#dir]) {
      const fd = openSync(path, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (path === temporary) renameSync(temporary, this.#path);
    }
  }
}
