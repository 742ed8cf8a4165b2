// How the command log's records (one per commit; their format is journal-codec.ts) reach the tables: merged,
// split into short transactions whose last marks the writer's seq applied, and replayed past those marks on open.
import type { Changes, PingWrite } from "../engine/changes.ts";
import type { Check } from "../engine/model.ts";
import { decodeJournal } from "./journal-codec.ts";
import { flipPut, removeFlips } from "./flip-log.ts";
import { removeSent } from "./sent-log.ts";
import { outboxPut, removeChannelEntries } from "./outbox.ts";
import { keptAfter, pingPut, removePings, trimPings, trimsOf } from "./ping-log.ts";
import { removeChannel, removeCheck, snapshotPuts } from "./snapshots.ts";
import type { Key } from "lmdb";
import type { Put, Table, Tables } from "./tables.ts";

/** Returns one Changes equal in effect to applying `list` in order (each check keeps its last state). */
export function mergeChanges(list: readonly Changes[]): Changes {
  if (list.length === 1) return list[0];
  const merger = new ChangesMerger();
  for (const changes of list) merger.add(changes);
  return merger.result();
}

/**
 * Merges Changes one at a time (mergeChanges in steps, so that a checkpoint of many commits can let its
 * thread's event loop run between them): the result is what applying every added one in order does.
 */
export class ChangesMerger {
  readonly #checks = new Map<string, Check>();
  readonly #merged = {
    projects: [],
    channels: [],
    checks: [],
    deletedChecks: [],
    deletedChannels: [],
    pings: [],
    flips: [],
    outbox: [],
    intake: [],
  } satisfies Changes;

  add(changes: Changes): void {
    const merged = this.#merged;
    append(merged.projects, changes.projects);
    append(merged.channels, changes.channels);
    for (const check of changes.checks) {
      this.#checks.delete(check.uuid); // re-insert: Map order follows the last write
      this.#checks.set(check.uuid, check);
    }
    append(merged.deletedChecks, changes.deletedChecks);
    append(merged.deletedChannels, changes.deletedChannels ?? []);
    append(merged.pings, changes.pings);
    append(merged.flips, changes.flips);
    append(merged.outbox, changes.outbox);
    append(merged.intake, changes.intake ?? []);
  }

  /** The merged Changes (call once, after the last add). */
  result(): Changes {
    append(this.#merged.checks, [...this.#checks.values()]);
    return this.#merged;
  }
}

/** Appends every item of `from` to `to` (no spread: lists may be huge). */
function append<T>(to: T[], from: readonly T[]): void {
  for (const item of from) to.push(item);
}

/**
 * Writes `changes` to the tables; call inside a write transaction. Upserts first, then ping appends
 * (skipping pings the trim below would remove at once), trims, and deleted checks and channels last
 * (a removed channel's outbox entries go with it, those upserted here included).
 */
export function applyChanges(tables: Tables, changes: Changes): void {
  const trims = trimsOf(changes.pings);
  const puts: Put[] = [
    ...snapshotPuts(tables, changes),
    ...changes.pings.flatMap((write) => (keptAfter(write, trims.get(write.checkUuid)) ? [pingPut(tables, write)] : [])),
    ...changes.flips.map((flip) => flipPut(tables, flip)),
    ...changes.outbox.map((entry) => outboxPut(tables, entry)),
  ];
  for (const put of puts) put.table.putSync(put.key, put.value);
  for (const [checkUuid, trim] of trims) trimPings(tables, checkUuid, trim, (table, key) => table.removeSync(key));
  for (const { projectId, uuid } of changes.deletedChecks) {
    removeCheck(tables, projectId, uuid);
    removePings(tables, uuid);
    removeFlips(tables, uuid);
    removeSent(tables, uuid);
  }
  for (const { projectId, id } of changes.deletedChannels ?? []) {
    removeChannel(tables, projectId, id);
    removeChannelEntries(tables, projectId, id);
  }
  for (const mark of changes.intake ?? []) {
    if (mark.position > intakeMark(tables, mark.writer, mark.shard))
      tables.meta.putSync(["intake", mark.writer, mark.shard], mark.position);
  }
}

/** Returns the position of intake log `writer` that shard `shard`'s commits in the tables reach (0 = none). */
export function intakeMark(tables: Tables, writer: string, shard: string): number {
  const position = tables.meta.get(["intake", writer, shard]);
  return typeof position === "number" ? position : 0;
}

/**
 * Splits `changes` into pieces whose application one after the other has its effect: `bulk`, the upserts
 * of projects, channels and checks, the pings and their trims, and the flips, in pieces of at most `size`
 * checks and pings (writes that need no read of what the same checkpoint wrote before them: bulkWrites
 * prepares each piece and issueBulk issues it as one batch of asynchronous writes), and `rest`, the outbox and the deletions
 * (applyChanges, in a transaction after the bulk). Checks and pings go in key order, so that each piece
 * walks its own run of pages; a check's pings keep their order, and each piece trims what it appends.
 */
export function splitChanges(changes: Changes, size: number): { bulk: Changes[]; rest: Changes } {
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const checks = [...changes.checks].sort((a, b) => byKey(a.projectId, b.projectId) || byKey(a.uuid, b.uuid));
  const pings = pingsByCheck(changes.pings);
  const bulk: Changes[] = [];
  for (let i = 0; i === 0 || i < Math.max(checks.length, pings.length); i += size) {
    bulk.push({
      projects: i === 0 ? changes.projects : [],
      channels: i === 0 ? changes.channels : [],
      flips: i === 0 ? changes.flips : [],
      checks: checks.slice(i, i + size),
      pings: pings.slice(i, i + size),
      deletedChecks: [],
      deletedChannels: [],
      outbox: [],
    });
  }
  return {
    bulk,
    rest: {
      projects: [],
      channels: [],
      checks: [],
      pings: [],
      flips: [],
      deletedChecks: changes.deletedChecks,
      deletedChannels: changes.deletedChannels ?? [],
      outbox: changes.outbox,
      intake: changes.intake ?? [],
    },
  };
}

/** Returns the pings grouped by check, checks in key order, each check's pings in their order. */
function pingsByCheck(pings: readonly PingWrite[]): PingWrite[] {
  const byCheck = new Map<string, PingWrite[]>();
  for (const write of pings) {
    const list = byCheck.get(write.checkUuid);
    if (list === undefined) byCheck.set(write.checkUuid, [write]);
    else list.push(write);
  }
  const out: PingWrite[] = [];
  for (const uuid of [...byCheck.keys()].sort()) append(out, byCheck.get(uuid)!);
  return out;
}

/** One write of a checkpoint's bulk, prepared (its value encoded) before the batch that issues it. */
export type BulkWrite = Put | { readonly table: Table; readonly key: Key; readonly remove: true };

/**
 * Prepares the writes of a split's `bulk`, one at a time (a checkpoint prepares them in slices, between
 * the pings its thread serves), for issueBulk. Trims read the tables now, as they are before the batch:
 * nothing in it writes what they read (the keys at or below a log's floor), and nothing else writes a
 * check's ping log meanwhile (its shard's checkpoints run one after another).
 */
export function* bulkWrites(tables: Tables, bulk: Changes): Generator<BulkWrite> {
  const trims = trimsOf(bulk.pings);
  yield* snapshotPuts(tables, bulk);
  for (const write of bulk.pings) if (keptAfter(write, trims.get(write.checkUuid))) yield pingPut(tables, write);
  for (const flip of bulk.flips) yield flipPut(tables, flip);
  for (const [checkUuid, trim] of trims) {
    const removes: BulkWrite[] = [];
    trimPings(tables, checkUuid, trim, (table, key) => {
      removes.push({ table, key, remove: true });
    });
    yield* removes;
  }
}

/** Issues prepared writes as asynchronous writes (call inside env.batch: one transaction, written by LMDB's write thread). */
export function issueBulk(writes: readonly BulkWrite[]): void {
  for (const write of writes) {
    if ("remove" in write) void write.table.remove(write.key);
    else void write.table.put(write.key, write.value);
  }
}

/** Returns the seq of `writer`'s last commit already in the tables (0 = none); read it inside the write transaction. */
export function checkpointedSeq(tables: Tables, writer: string): number {
  const seq = tables.meta.get(["checkpointed", writer]);
  return typeof seq === "number" ? seq : 0;
}

/** Records that `writer`'s commits up to `seq` are in the tables; call inside the write transaction that applied them. */
export function markCheckpointed(tables: Tables, writer: string, seq: number): void {
  if (seq > checkpointedSeq(tables, writer)) tables.meta.putSync(["checkpointed", writer], seq);
}

/** A record of the command log as a replay reads it: its writer (a store), its position (the writer's seq) and bytes. */
export type WrittenRecord = { readonly writer: string; readonly seq: number; readonly bytes: Uint8Array };

/**
 * Applies the records (any writer, each writer's in order) that the tables don't hold yet. Safe while
 * other threads write: the tables' marks decide what is applied.
 */
export async function replayRecords(tables: Tables, records: readonly WrittenRecord[]): Promise<void> {
  if (records.length === 0) return;
  // asynchronous like every write here: a synchronous transaction would wait for the write lock, which
  // a checkpoint of another store in this thread may hold while it waits for this thread (a deadlock)
  await tables.env.childTransaction(() => {
    const fresh = records.filter((r) => r.seq > checkpointedSeq(tables, r.writer));
    // a patch applies to its check's newest state: an earlier fresh record's, else the tables'
    const latest = new Map<string, Check>();
    const lastState = (projectId: string, uuid: string) => latest.get(uuid) ?? (tables.checks.get([projectId, uuid]) as Check | undefined);
    const decoded = fresh.map((r) => {
      const changes = decodeJournal(r.bytes, lastState);
      for (const check of changes.checks) latest.set(check.uuid, check);
      return changes;
    });
    applyChanges(tables, mergeChanges(decoded));
    for (const r of fresh) markCheckpointed(tables, r.writer, r.seq);
  });
  // The marks stay: a live writer (another shard) still checkpoints these records and must skip them.
  // Each writer drops its own mark when it closes; a crashed writer's mark (a few bytes) remains.
}

/** Removes `writer`'s mark; the writer calls this as it closes, once its log is gone. */
export async function dropMark(tables: Tables, writer: string): Promise<void> {
  await tables.meta.remove(["checkpointed", writer]);
}

const MAX_ID_CHARS = 128; // every id in a key; LMDB keys hold at most 511 bytes

/** Returns why a commit's keys can't be stored, or null when they can (checked on the commit path: no copies). */
export function keyProblem(changes: Changes): string | null {
  const bad = (id: unknown) => typeof id !== "string" || id.length === 0 || id.length > MAX_ID_CHARS;
  const any = <T>(list: readonly T[], ...ids: ((item: T) => unknown)[]) => list.some((item) => ids.some((id) => bad(id(item))));
  const broken =
    any(changes.projects, (p) => p.id) ||
    any(
      changes.channels,
      (c) => c.projectId,
      (c) => c.id,
    ) ||
    any(
      changes.checks,
      (c) => c.projectId,
      (c) => c.uuid,
    ) ||
    any(
      changes.deletedChecks,
      (d) => d.projectId,
      (d) => d.uuid,
    ) ||
    any(changes.pings, (p) => p.checkUuid) ||
    any(changes.flips, (f) => f.checkUuid) ||
    any(changes.outbox, (e) => e.id);
  return broken ? `an id is empty or longer than ${MAX_ID_CHARS} characters` : null;
}
