// The write profile of the durable path, in this process (so /proc/self/io counts only the store): what
// one acknowledged ping puts in the journal and what its checkpoint writes to the tables, for the two
// everyday shapes of traffic: 20 commits per event-loop turn (20 connections) and 1 per turn (a steady,
// low rate: each ping its own synced transaction). 1,000 checks, the default ping log limit, 35-byte bodies.
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pack } from "msgpackr";
import type { Changes, PingWrite } from "../engine/changes.ts";
import { LIMITS } from "../engine/model.ts";
import type { Check } from "../engine/model.ts";
import { floorOf } from "../persistence/ping-log.ts";
import { openStore, Store } from "../persistence/store.ts";
import { check, ping, project, tempDir } from "../test/helpers.ts";
import { median, settledWriteBytes, writeBytesOf } from "./measure.ts";

const CHECKS = 1_000;
const COMMITS = 240; // far below the store's own checkpoint triggers: the checkpoint here is ours
const BODY = new Uint8Array(35).fill(120);

/** Bytes per ping of one shape: journal (commits, synced), checkpoint (tables + journal removal), and what was touched. */
export type WriteProfileRow = {
  readonly perTurn: number;
  readonly journalPerPing: number;
  readonly checkpointPerPing: number;
  readonly checkpointPerCheck: number;
  readonly checksTouched: number;
};

/**
 * Sizes of what one ping writes, as encoded (before LMDB pages); `compactRecord`: the ping as a compact
 * log entry would be (its PingWrite and the check's changed fields), for the redesign's estimate.
 */
export type RecordSizes = {
  readonly journalRecord: number;
  readonly compactRecord: number;
  readonly checkRow: number;
  readonly pingRecord: number;
  readonly body: number;
};

/** Bytes per record of the same traffic appended to a plain file, one write + fdatasync per turn (the candidate log medium). */
export type FileAppendRow = { readonly perTurn: number; readonly recordBytes: number; readonly perRecord: number };

/** One checkpoint of a store whose ping logs are full: bytes written per ping, and the tables' pages then. */
export type FullLogRow = {
  readonly checkpoint: number;
  readonly pings: number;
  readonly perPing: number;
  readonly perCheck: number;
  readonly trims: number;
  readonly pingLeafPages: number;
};

const FULL_KEEP = LIMITS.defaultPingLogLimit;
const FULL_PER_CHECK = 12; // pings of each check per checkpoint: a steady 200/s for a minute over 1,000 checks

/** A store in a new temporary directory holding one project of CHECKS checks, checkpointed. */
async function storeWithChecks(prefix: string): Promise<{ dir: ReturnType<typeof tempDir>; store: Store; checks: Check[] }> {
  const dir = tempDir(prefix);
  const store = await openStore(dir.path, { durability: "flush" });
  const owner = project();
  const checks: Check[] = Array.from({ length: CHECKS }, () =>
    check({ projectId: owner.id, name: "nightly backup", slug: "nightly-backup" }),
  );
  await store.commit({ ...none(), projects: [owner], checks });
  await store.checkpoint();
  return { dir, store, checks };
}

/** Returns the changes of one POST ping of checks[index] at `at` (the shard's marks included), and keeps the check's new state there. */
function pingChangesOf(checks: Check[], index: number, at: number, keep: number): Changes {
  const updated: Check = { ...checks[index], nPings: checks[index].nPings + 1, lastPingAt: at, status: "up" };
  checks[index] = updated;
  const write: PingWrite = {
    projectId: updated.projectId,
    checkUuid: updated.uuid,
    keep,
    body: BODY,
    record: ping({ n: updated.nPings, at, method: "POST", remoteAddr: "127.0.0.1", ua: "hcd-bench", bodySize: BODY.length }),
  };
  return { ...none(), checks: [updated], pings: [write], stateOnly: true }; // as the shard marks a ping's changes
}

/**
 * The write profile of the everyday state: 1,000 checks whose ping logs hold their `keep` (the default,
 * 100) pings, each with a 35-byte body; then four checkpoints of FULL_PER_CHECK pings of every check
 * (in shuffled order, 20 commits a turn), each measured alone (/proc/self/io, settled).
 */
export async function runFullLogProfile(): Promise<FullLogRow[]> {
  const { dir, store, checks } = await storeWithChecks("hcd-bench-full-");
  try {
    let at = Date.now(),
      seed = 11;
    const pingOf = (index: number): Changes => pingChangesOf(checks, index, ++at, FULL_KEEP);
    const round = async (perCheck: number) => {
      const order = Array.from({ length: perCheck * CHECKS }, (_, i) => i % CHECKS);
      for (let i = order.length - 1; i > 0; i--) {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        const j = (seed >>> 8) % (i + 1);
        [order[i], order[j]] = [order[j], order[i]];
      }
      for (let i = 0; i < order.length; i += 20) await Promise.all(order.slice(i, i + 20).map((index) => store.commit(pingOf(index))));
    };
    for (let filled = 0; filled < FULL_KEEP; filled += 25) {
      // filled as a steady stream fills them: a checkpoint per 25 pings of each check
      await round(25);
      await store.checkpoint();
    }
    const rows: FullLogRow[] = [];
    for (let r = 1; r <= 4; r++) {
      await round(FULL_PER_CHECK);
      const newest = checks[0].nPings;
      const before = await settledWriteBytes("self", { minMs: 200, quietMs: 300, maxMs: 5_000 });
      await store.checkpoint();
      const after = await settledWriteBytes("self", { minMs: 200, quietMs: 300, maxMs: 5_000 });
      const pings = FULL_PER_CHECK * CHECKS;
      rows.push({
        checkpoint: r,
        pings,
        perPing: (after - before) / pings,
        perCheck: (after - before) / CHECKS,
        trims: floorOf(newest, FULL_KEEP) > floorOf(newest - FULL_PER_CHECK, FULL_KEEP) ? CHECKS : 0,
        pingLeafPages: store.tableStats("pings").leafPages,
      });
    }
    return rows;
  } finally {
    await store.close();
    dir.remove();
  }
}

/** Measures `runs` times per shape (fresh store each) and returns the medians, with the record sizes. */
export async function runWriteProfile(runs = 3): Promise<{ rows: WriteProfileRow[]; sizes: RecordSizes; fileAppends: FileAppendRow[] }> {
  if (writeBytesOf("self") === null) throw new Error("write profile: /proc/self/io is not readable here");
  const rows: WriteProfileRow[] = [];
  let sizes: RecordSizes | null = null;
  for (const perTurn of [20, 1]) {
    const measured: WriteProfileRow[] = [];
    for (let r = 0; r < runs; r++) {
      const run = await profileOnce(perTurn);
      measured.push(run.row);
      sizes ??= run.sizes;
    }
    const med = (pick: (row: WriteProfileRow) => number) => median(measured.map(pick));
    rows.push({
      perTurn,
      journalPerPing: med((m) => m.journalPerPing),
      checkpointPerPing: med((m) => m.checkpointPerPing),
      checkpointPerCheck: med((m) => m.checkpointPerCheck),
      checksTouched: med((m) => m.checksTouched),
    });
  }
  const known = sizes as RecordSizes;
  const fileAppends: FileAppendRow[] = [];
  for (const perTurn of [20, 1]) {
    for (const recordBytes of [known.journalRecord, known.compactRecord]) {
      fileAppends.push({
        perTurn,
        recordBytes,
        perRecord: median(Array.from({ length: runs }, () => fileAppendOnce(perTurn, recordBytes))),
      });
    }
  }
  return { rows, sizes: known, fileAppends };
}

/** Appends COMMITS records of `recordBytes` to a fresh file, `perTurn` per write + fdatasync; returns bytes written per record. */
function fileAppendOnce(perTurn: number, recordBytes: number): number {
  const dir = tempDir("hcd-bench-append-");
  const fd = openSync(join(dir.path, "log"), "a");
  try {
    const before = writeBytesOf("self") ?? Number.NaN;
    for (let done = 0; done < COMMITS; done += perTurn) {
      writeSync(fd, new Uint8Array(Math.min(perTurn, COMMITS - done) * recordBytes).fill(1));
      fdatasyncSync(fd);
    }
    return ((writeBytesOf("self") ?? Number.NaN) - before) / COMMITS;
  } finally {
    closeSync(fd);
    dir.remove();
  }
}

async function profileOnce(perTurn: number): Promise<{ row: WriteProfileRow; sizes: RecordSizes }> {
  const { dir, store, checks } = await storeWithChecks("hcd-bench-writes-");
  try {
    let at = Date.now(),
      seed = 7;
    const pingChanges = (): Changes => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      const index = (seed >>> 12) % CHECKS; // the high bits: the low ones of this generator cycle quickly
      return pingChangesOf(checks, index, ++at, LIMITS.defaultPingLogLimit);
    };
    const touched = new Set<string>();
    let sample: Changes | null = null;
    const beforeJournal = await settledWriteBytes("self", { minMs: 200, quietMs: 300, maxMs: 5_000 });
    for (let done = 0; done < COMMITS; done += perTurn) {
      const turn = Array.from({ length: Math.min(perTurn, COMMITS - done) }, pingChanges);
      for (const changes of turn) touched.add(changes.checks[0].uuid);
      sample = turn[0];
      await Promise.all(turn.map((changes) => store.commit(changes)));
    }
    const afterJournal = await settledWriteBytes("self", { minMs: 200, quietMs: 300, maxMs: 5_000 });
    await store.checkpoint();
    const afterCheckpoint = await settledWriteBytes("self", { minMs: 200, quietMs: 300, maxMs: 5_000 });
    const ping0 = (sample as Changes).pings[0];
    return {
      row: {
        perTurn,
        journalPerPing: (afterJournal - beforeJournal) / COMMITS,
        checkpointPerPing: (afterCheckpoint - afterJournal) / COMMITS,
        checkpointPerCheck: (afterCheckpoint - afterJournal) / touched.size,
        checksTouched: touched.size,
      },
      sizes: {
        journalRecord: Store.recordSize(sample as Changes),
        compactRecord: compactSize(sample as Changes),
        checkRow: pack((sample as Changes).checks[0]).length,
        pingRecord: pack(ping0.record).length,
        body: BODY.length,
      },
    };
  } finally {
    await store.close();
    dir.remove();
  }
}

/** Returns the size of a ping as a compact log entry: its PingWrite, and the check fields a ping changes. */
function compactSize(changes: Changes): number {
  const c = changes.checks[0];
  const patch = [c.projectId, c.uuid, c.status, c.nPings, c.nFlips, c.lastPingAt, c.lastStartAt, c.lastStartRid, c.lastDurationMs];
  return pack({ ping: changes.pings[0], patch }).length;
}

function none(): Changes {
  return { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };
}
