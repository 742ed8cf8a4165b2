// The dashboard's sessions every node shares, in a replicated KV bucket: found by any node that gets the cookie,
// ended everywhere by a sign-out on one (a watch of removals).
import type { KV, KvEntry } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { BucketFollower } from "./bucket-follower.ts";
import { openBucket } from "./jetstream-setup.ts";
import { sessionKeyOf } from "../persistence/session-file.ts";

/** A dashboard session (the same fields as http/dashboard/sessions.ts's Session). */
export type SessionRecord = {
  readonly id: string;
  readonly principal:
    | { readonly kind: "admin"; readonly tokenHash: string }
    | { readonly kind: "key"; readonly apiKey: string }
    | { readonly kind: "user"; readonly userId: string; readonly generation: number };
  readonly csrf: string;
  readonly expiresAt: number;
};

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * Each node keeps the sessions it has seen in memory and asks the bucket only for a cookie it does not know.
 * Each session is kept under the SHA-256 of its id (persistence/session-file.ts's sessionKeyOf), never the id,
 * its value holding everything but the id; a session an older node kept under its id is moved under its key
 * when first read, so a rolling upgrade signs nobody out.
 * A session's value holds the key it was opened with (a secret in a value, never in a key). The bucket's
 * age limit is the dashboard's idle limit, and a used session's copy is renewed at most once an hour, so a
 * forgotten session leaves the bucket on its own.
 */
export class DashboardSessions {
  readonly #kv: KV;
  readonly #listeners: ((id: string) => void)[] = [];
  #follower: BucketFollower | null = null;

  private constructor(kv: KV) {
    this.#kv = kv;
  }

  /** Opens (or creates) the bucket and starts hearing removals. `idleMs`: the dashboard's idle limit. */
  static async open(options: {
    connection: NatsConnection;
    replicas: number;
    idleMs: number;
    bucket?: string;
  }): Promise<DashboardSessions> {
    const kv = await openBucket(options.connection, options.bucket ?? "hcd-sessions", {
      replicas: options.replicas,
      history: 1,
      ttl: options.idleMs,
      allow_direct: false,
    });
    const sessions = new DashboardSessions(kv);
    await sessions.#follow();
    return sessions;
  }

  async put(session: SessionRecord): Promise<void> {
    const { id, ...kept } = session;
    await this.#kv.put(keyOf(id), utf8.encode(JSON.stringify(kept)));
  }

  async remove(id: string): Promise<void> {
    if (!validId(id)) return;
    await this.#kv.delete(keyOf(id));
    if ((await this.#kv.get(legacyKeyOf(id))) !== null) await this.#kv.delete(legacyKeyOf(id));
  }

  /** The stored session, or null (none, removed, or an id that could not be a session's). */
  async get(id: string): Promise<SessionRecord | null> {
    if (!validId(id)) return null; // a cookie is the client's: never a key pattern
    const found = recordOf(await this.#kv.get(keyOf(id)), id);
    if (found !== null) return found;
    const legacy = recordOf(await this.#kv.get(legacyKeyOf(id)), id); // kept by an older node under its id
    if (legacy === null) return null;
    await this.put(legacy);
    await this.#kv.delete(legacyKeyOf(id));
    return legacy;
  }

  onRemoved(listener: (id: string) => void): void {
    this.#listeners.push(listener);
  }

  close(): void {
    this.#follower?.stop();
  }

  /** Hears the removals from now on (the watch's first values are the bucket's present ones: only deletions count). */
  async #follow(): Promise<void> {
    this.#follower = await BucketFollower.start(this.#kv, {
      key: "s.*",
      onEntry: (entry) => {
        if (entry.operation === "PUT") return;
        const name = entry.key.slice("s.".length);
        // "h" and 64 hex digits: a session's key; else the id an older node kept a session under
        const key = name.length === 65 && name.startsWith("h") ? name.slice(1) : sessionKeyOf(name);
        for (const listener of this.#listeners) listener(key);
      },
    });
  }

  /** How many times the watch of removals was started again (it stalled or ended). */
  get watchRestarts(): number {
    return this.#follower?.restarts ?? 0;
  }
}

/** Session ids are 32 random bytes in base64url (43 characters): anything else is not looked up. */
function validId(id: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(id);
}

/** The bucket's key of a session: "s.h" and the SHA-256 of its id. */
function keyOf(id: string): string {
  return `s.h${sessionKeyOf(id)}`;
}

/** Where an older node kept a session: under its id. */
function legacyKeyOf(id: string): string {
  return `s.${id}`;
}

/** The session of an entry read for `id`, or null (none, removed, or not a session's value). */
function recordOf(entry: KvEntry | null, id: string): SessionRecord | null {
  if (entry === null || entry.operation !== "PUT") return null;
  try {
    const value = JSON.parse(fromUtf8.decode(entry.value)) as Omit<SessionRecord, "id"> & { id?: string };
    if (value.id !== undefined && value.id !== id) return null;
    return typeof value.csrf === "string" && typeof value.expiresAt === "number" ? { ...value, id } : null;
  } catch {
    return null;
  }
}
