// Cluster mode's dashboard sessions: each node holds the sessions it serves and shares them through the
// cluster's bucket, so another node finds a session its cookie names and a sign-out anywhere ends it everywhere.
import type { Clock } from "../../host/clock.ts";
import { sessionKeyOf } from "../../host/session-key.ts";
import { HOUR } from "../../engine/model.ts";
import type { Millis } from "../../engine/model.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";
import type { SharedSessions } from "../deps.ts";
import type { Session, SessionStore } from "./sessions.ts";
import { MAX_SESSIONS } from "./sessions.ts";

/** How often a node checks that a session it holds is still shared (not signed out elsewhere). */
const SHARED_CHECK_MS = 5_000;

export class SessionSharing {
  readonly #sessions: SessionStore;
  readonly #shared: SharedSessions | undefined; // undefined: a single node, nothing to share
  readonly #clock: Clock;
  // session id → the expiry its shared copy holds, and when this node last found that copy still there;
  // bounded like the sessions themselves (an expired or evicted session's entry goes with the oldest)
  readonly #copies = new BoundedMap<string, { until: Millis; checkedAt: Millis }>(MAX_SESSIONS);

  constructor(sessions: SessionStore, shared: SharedSessions | undefined, clock: Clock) {
    this.#sessions = sessions;
    this.#shared = shared;
    this.#clock = clock;
    shared?.onRemoved((key) => {
      // at once, while the watch of removals runs; it names the session's key, never its id
      sessions.closeKey(key);
      for (const [id] of this.#copies.entries()) if (sessionKeyOf(id) === key) this.#copies.delete(id);
    });
  }

  /** Shares a session opened or renewed here; another node that gets the cookie then finds it. */
  async share(session: Session, at: Millis): Promise<void> {
    if (this.#shared === undefined) return;
    this.#copies.set(session.id, { until: session.expiresAt, checkedAt: at });
    await this.#shared.put(session);
  }

  /** Ends a session's shared copy (a sign-out here ends it on every node). */
  async unshare(id: string): Promise<void> {
    this.#copies.delete(id);
    await this.#shared?.remove(id).catch(() => {}); // the shared copy then runs out with its bucket's age limit
  }

  /**
   * Before a request with session `id` is served: a session this node does not hold is looked up among the
   * shared ones. One it holds is checked against its shared copy every SHARED_CHECK_MS (a sign-out on
   * another node ends it here within that, even when the watch of removals missed it, as across a
   * reconnection), and that copy is renewed at most once an hour (the idle limit is 12 h). While the
   * bucket does not answer, the sessions held here go on.
   */
  async sync(id: string | null): Promise<void> {
    if (this.#shared === undefined || id === null || id === "") return;
    const now = this.#clock.now();
    const copy = this.#copies.get(id);
    if (!this.#sessions.has(id) || copy === undefined || now - copy.checkedAt >= SHARED_CHECK_MS) {
      let stored: Session | null;
      try {
        stored = await this.#shared.get(id);
      } catch {
        return;
      }
      if (stored === null) {
        this.#sessions.close(id);
        this.#copies.delete(id);
        return;
      }
      if (!this.#sessions.has(id)) this.#sessions.adopt(stored, now);
      this.#copies.set(id, { until: stored.expiresAt, checkedAt: now });
      return;
    }
    const session = this.#sessions.find(id, now);
    if (session !== null && session.expiresAt - copy.until >= HOUR) void this.share(session, now).catch(() => {});
  }
}
