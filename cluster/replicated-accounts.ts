// The dashboard's users, invitations and roles shared by every node: one document in a replicated KV bucket,
// changed by compare-and-set and watched by every node into its Accounts (host/accounts.ts).
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { AccountsStore } from "../host/accounts.ts";
import type { AccountsDocument } from "../persistence/accounts-file.ts";
import { EMPTY_ACCOUNTS } from "../persistence/accounts-file.ts";
import { BucketFollower } from "./bucket-follower.ts";
import { openBucket } from "./jetstream-setup.ts";
import { wrongLastSequence } from "./nats-errors.ts";

const KEY = "document";
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * The document holds password and invitation hashes, never a password or a token. A change is applied to
 * the newest stored document and published expecting the stream's last sequence to be that document's (the
 * bucket holds one key, so the stream-wide expectation is the key's; 0 for the first); when another node
 * stored first, the change is made again on its document.
 */
/** Opens (or creates) the bucket and returns the store, following every node's changes from now on. */
export async function openReplicatedAccounts(options: {
  connection: NatsConnection;
  replicas: number;
  bucket?: string;
}): Promise<AccountsStore & { close(): void }> {
  const bucket = options.bucket ?? "hcd-accounts";
  const js = jetstream(options.connection);
  const kv = await openBucket(options.connection, bucket, { replicas: options.replicas, history: 1, allow_direct: false });
  const listeners: ((document: AccountsDocument) => void)[] = [];
  const read = async (): Promise<{ document: AccountsDocument; revision: number }> => {
    const entry = await kv.get(KEY);
    if (entry === null || entry.operation !== "PUT") return { document: EMPTY_ACCOUNTS, revision: 0 };
    return { document: JSON.parse(fromUtf8.decode(entry.value)) as AccountsDocument, revision: entry.revision };
  };
  // the newest document this node knows, by revision: a change's own answer and the watch may arrive in
  // either order, and an older one must never replace a newer one
  let latest = await read();
  const learn = (document: AccountsDocument, revision: number): void => {
    if (revision <= latest.revision) return;
    latest = { document, revision };
    for (const listener of listeners) listener(document);
  };
  const initial = latest.document;
  const follower = await BucketFollower.start(kv, {
    key: KEY,
    onEntry: (entry) => {
      if (entry.operation === "PUT") learn(JSON.parse(fromUtf8.decode(entry.value)) as AccountsDocument, entry.revision);
    },
  });
  return {
    initial,
    async change(edit) {
      for (;;) {
        const { document, revision } = await read();
        const next = edit(document);
        if (next === null) {
          learn(document, revision);
          return latest.document;
        }
        try {
          const ack = await js.publish(`$KV.${bucket}.${KEY}`, utf8.encode(JSON.stringify(next)), {
            expect: { lastSequence: revision },
            timeout: 5_000,
          });
          learn(next, ack.seq);
          return latest.document;
        } catch (error) {
          if (!wrongLastSequence(error)) throw error; // another node stored first: made again on its document
        }
      }
    },
    onStored(listener) {
      listeners.push(listener);
    },
    close() {
      follower.stop();
    },
  };
}
