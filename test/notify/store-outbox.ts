// The deliverer's outbox on a real store: LMDB in a temp dir, seen through the wiring a shard uses
// (shardOutbox, with its per-shard filter), so a test exercises what production runs.
import type { OutboxEntry } from "../../engine/changes.ts";
import { noChanges } from "../../engine/changes.ts";
import { shardOutbox } from "../../app/shard-outbox.ts";
import type { Outbox } from "../../notify/deliverer.ts";
import { openStore } from "../../persistence/store.ts";
import type { Store } from "../../persistence/store.ts";
import { tempDir } from "../helpers.ts";

export class StoreOutbox implements Outbox {
  readonly #store: Store;
  readonly #view: Outbox;
  readonly #remove: () => void;

  private constructor(store: Store, view: Outbox, remove: () => void) {
    this.#store = store;
    this.#view = view;
    this.#remove = remove;
  }

  /** Opens a fresh store holding `entries`, seen as shard `index` of `count` (default: the only shard). */
  static async open(entries: readonly OutboxEntry[] = [], shard = { index: 0, count: 1 }): Promise<StoreOutbox> {
    const dir = tempDir("hcd-outbox-");
    const store = await openStore(dir.path, { durability: "commit" });
    const outbox = new StoreOutbox(store, shardOutbox(store, shard.index, shard.count), dir.remove);
    for (const entry of entries) await outbox.add(entry);
    return outbox;
  }

  outboxDue(at: number, limit: number): OutboxEntry[] {
    return this.#view.outboxDue(at, limit);
  }
  outboxAll(): OutboxEntry[] {
    return this.#view.outboxAll?.() ?? [];
  }
  outboxUpdate(entry: OutboxEntry): Promise<void> {
    return this.#view.outboxUpdate(entry);
  }
  outboxDelete(id: string): Promise<void> {
    return this.#view.outboxDelete(id);
  }
  outboxHas(id: string): boolean {
    return this.#view.outboxHas?.(id) ?? true;
  }

  /** Stores an entry as a shard's commit would have (a later flip committed while the deliverer runs). */
  async add(entry: OutboxEntry): Promise<void> {
    await this.#store.commit({ ...noChanges(), outbox: [entry] });
    await this.#store.checkpoint();
  }
  /** Every entry in the table, of every shard, ordered by id. */
  all(): OutboxEntry[] {
    return this.#store.outboxAll();
  }
  /** Returns the stored entry with this id, or null once it was delivered. */
  get(id: string): OutboxEntry | null {
    return this.all().find((entry) => entry.id === id) ?? null;
  }
  async close(): Promise<void> {
    await this.#store.close();
    this.#remove();
  }
}
