// The dashboard's sign-in state every node shares, in a replicated KV bucket: failures per account or address,
// sign-ins waiting for their second factor, single sign-ons started; each entry gone 15 minutes after its last write.
import { createHash } from "node:crypto";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Millis } from "../engine/model.ts";
import type { PendingSignIn, SignInStore, SsoStart } from "../host/sign-in-store.ts";
import { openBucket } from "./jetstream-setup.ts";
import { wrongLastSequence } from "./nats-errors.ts";

const KEEP_MS = 15 * 60_000;
const ATTEMPTS = 10;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
/** A pending sign-in's id as account-routes makes it, and an SSO state as openid-client makes it (32 random bytes, base64url); anything else names nothing. */
const PENDING_ID = /^[A-Za-z0-9_-]{43}$/;

const failureKey = (key: string) => `f.${createHash("sha256").update(key).digest("hex")}`;

// Keys: `f.<sha-256 of the key>` (emails and addresses never in a key), `p.<id>`, `o.<state>` (taken once,
// by a delete that expects the read revision: two nodes given the same callback can't both take it). A
// failure is counted by compare-and-set, made again when another node counted one meanwhile (a few times: a
// burst that keeps winning the race is refused, never waited out).

/** Opens (or creates) the bucket. */
export async function openSignInBucket(options: { connection: NatsConnection; replicas: number; bucket?: string }): Promise<SignInStore> {
  const kv: KV = await openBucket(options.connection, options.bucket ?? "hcd-signin", {
    replicas: options.replicas,
    history: 1,
    ttl: KEEP_MS,
    allow_direct: false,
  });
  const read = async <T>(key: string): Promise<{ value: T; revision: number } | null> => {
    const entry = await kv.get(key);
    if (entry === null || entry.operation !== "PUT") return null;
    return { value: JSON.parse(fromUtf8.decode(entry.value)) as T, revision: entry.revision };
  };
  return {
    async failures(key) {
      return (await read<Millis[]>(failureKey(key)))?.value ?? [];
    },
    async editFailures(key, edit) {
      const stored = failureKey(key);
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const now = await read<Millis[]>(stored);
        const edited = edit(now?.value ?? []);
        if (edited === null) return false;
        const next = utf8.encode(JSON.stringify(edited));
        try {
          if (now === null) await kv.create(stored, next);
          else await kv.update(stored, next, now.revision);
          return true;
        } catch (error) {
          // another node wrote first (a create finds the key there, an update a newer revision): again on its value
          if (!wrongLastSequence(error)) throw error;
        }
      }
      return false; // others kept writing first: a burst, which the caller refuses rather than wait out
    },
    async putPending(id, pending) {
      await kv.put(`p.${id}`, utf8.encode(JSON.stringify(pending)));
    },
    async pending(id) {
      if (!PENDING_ID.test(id)) return null; // the form's field is the client's: never a key pattern
      return (await read<PendingSignIn>(`p.${id}`))?.value ?? null;
    },
    async dropPending(id) {
      if (PENDING_ID.test(id)) await kv.delete(`p.${id}`);
    },
    async putSsoStart(start) {
      if (!PENDING_ID.test(start.state)) throw new Error("an SSO state is 32 random bytes in base64url");
      await kv.put(`o.${start.state}`, utf8.encode(JSON.stringify(start)));
    },
    async takeSsoStart(state) {
      if (!PENDING_ID.test(state)) return null; // the callback's parameter is the client's: never a key pattern
      const found = await read<SsoStart>(`o.${state}`);
      if (found === null) return null;
      try {
        await kv.delete(`o.${state}`, { previousSeq: found.revision });
      } catch (error) {
        if (wrongLastSequence(error)) return null; // another node took it first
        throw error;
      }
      return found.value;
    },
  };
}
