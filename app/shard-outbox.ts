// The outbox as one shard's deliverer sees it: the shared outbox table, narrowed to the shard's own projects.
import type { OutboxEntry } from "../engine/changes.ts";
import { sentNoticeOf } from "../engine/changes.ts";
import type { Outbox } from "../notify/deliverer.ts";
import type { Store } from "../persistence/store.ts";
import { shardOf } from "../host/routing.ts";

/** Returns shard `index` of `count`'s view of the store's outbox (every shard opens the same store). */
export function shardOutbox(store: Store, index: number, count: number): Outbox {
  const own = (entry: OutboxEntry) => shardOf(entry.projectId, count) === index;
  return {
    // filtered while scanning: another shard's backlog of older due entries must not hide ours
    outboxDue: (at, limit) => store.outboxDue(at, limit, own),
    outboxAll: () => store.outboxAll().filter(own),
    outboxUpdate: (entry) => store.outboxUpdate(entry),
    outboxDelete: (id) => store.outboxDelete(id),
    outboxDelivered: (entry, sentAt) => store.outboxDelivered(sentNoticeOf(entry, sentAt)),
    outboxHas: (id) => store.outboxHas(id),
  };
}
