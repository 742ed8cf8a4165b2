// The bytes of a partition's log records and snapshots: self-describing msgpack, each message opening with a
// fixed record id, so a reader refuses another kind instead of misreading it.
import { wireEnvelopePackr, wirePackr as packr } from "./wire-packr.ts";
import type { ShardCommand } from "../engine/commands.ts";
import type { Channel, Check, Millis, Project } from "../engine/model.ts";
import type { Shard } from "../engine/shard.ts";

// A command record carries the ids the shard hands out applying it (drawn by the owner before the append,
// so every replay creates the same check). Records appended together are one batch message, each inside
// encoded as a command message of its own: a log of one command per position still replays. A snapshot
// keeps each project's channels in creation order (the order notifications go out in).

/** The first value of every encoded message: what the rest is. Never renumbered; a new format gets a new id. */
export const RECORD_IDS = { command: 1, snapshot: 2, snapshotHead: 3, batch: 4 } as const;
export type RecordKind = keyof typeof RECORD_IDS;

// copyBuffers: a decoded ping body must not point into the message's buffer, which the client reuses

/**
 * One command of a partition's log and the ids its application may hand out, in order; a ping taken from
 * the intake stream (or an advance that records how far it was read) carries that stream's position.
 */
export type PartitionRecord = { readonly command: ShardCommand; readonly ids: readonly string[]; readonly intake?: number };

/** One project as a snapshot holds it: channels in creation order, checks by uuid. */
export type SnapshotProject = { readonly project: Project; readonly channels: readonly Channel[]; readonly checks: readonly Check[] };

/**
 * A partition's state: every project, the latest instant a command applied to it carried (the wheel starts
 * there), and how far its pings were taken from the intake stream (0: none).
 */
export type PartitionSnapshot = { readonly at: Millis; readonly projects: readonly SnapshotProject[]; readonly intake: number };

/** Where a stored snapshot's body is and which log position it covers (every record up to it, inclusive). */
export type SnapshotHead = { readonly logSequence: number; readonly firstChunk: number; readonly chunks: number; readonly bytes: number };

export function encodeRecord(record: PartitionRecord): Uint8Array {
  return packr.pack(
    record.intake === undefined
      ? [RECORD_IDS.command, record.command, record.ids]
      : [RECORD_IDS.command, record.command, record.ids, record.intake],
  );
}

export function decodeRecord(bytes: Uint8Array): PartitionRecord {
  const [command, ids, intake] = open(bytes, "command", 2, 3);
  if (intake !== undefined && typeof intake !== "number")
    throw new Error("not a partition command record (its intake position is not a number)");
  return intake === undefined
    ? { command: withPlainBody(command as ShardCommand), ids: ids as string[] }
    : { command: withPlainBody(command as ShardCommand), ids: ids as string[], intake };
}

/**
 * Returns one log message holding the records, in order, given each already encoded (encodeRecord): a
 * single record is its own command message, several are a batch message of them.
 */
export function encodeMessage(encodedRecords: readonly Uint8Array[]): Uint8Array {
  if (encodedRecords.length === 1) return encodedRecords[0];
  return packr.pack([RECORD_IDS.batch, encodedRecords]);
}

/**
 * Returns the log messages of records appended together (each already encoded): in order, as many in one
 * message as fit in `maxBytes` (a record larger than that alone); `count` says how many records each holds.
 */
export function logMessagesOf(encodedRecords: readonly Uint8Array[], maxBytes: number): { bytes: Uint8Array; count: number }[] {
  const messages: { bytes: Uint8Array; count: number }[] = [];
  let group: Uint8Array[] = [],
    size = 0;
  for (const bytes of encodedRecords) {
    if (group.length > 0 && size + bytes.length > maxBytes) {
      messages.push({ bytes: encodeMessage(group), count: group.length });
      group = [];
      size = 0;
    }
    group.push(bytes);
    size += bytes.length;
  }
  if (group.length > 0) messages.push({ bytes: encodeMessage(group), count: group.length });
  return messages;
}

/** Returns the records of one log message: a command message (as every message was before batches) or a batch message. */
export function decodeMessage(bytes: Uint8Array): PartitionRecord[] {
  const value: unknown = wireEnvelopePackr.unpack(bytes);
  if (Array.isArray(value) && value[0] === RECORD_IDS.batch && value.length === 2 && Array.isArray(value[1])) {
    return (value[1] as unknown[]).map((inner) => {
      if (!(inner instanceof Uint8Array)) throw new Error(`not a partition batch record (an element of ${typeof inner})`);
      return decodeRecord(inner);
    });
  }
  return [decodeRecord(bytes)];
}

/** Returns the shard's whole state at `at` (the latest instant it applied). */
export function snapshotOf(shard: Shard, at: Millis, intake: number): PartitionSnapshot {
  const projects = shard
    .projects()
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((project) => ({
      project,
      channels: shard.channels(project.id),
      checks: shard.listChecks(project.id, { tags: [] }).sort((a, b) => (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0)),
    }));
  return { at, projects, intake };
}

export function encodeSnapshot(snapshot: PartitionSnapshot): Uint8Array {
  return packr.pack([RECORD_IDS.snapshot, snapshot.at, snapshot.projects.map((p) => [p.project, p.channels, p.checks]), snapshot.intake]);
}

export function decodeSnapshot(bytes: Uint8Array): PartitionSnapshot {
  const [at, projects, intake] = open(bytes, "snapshot", 2, 3); // a snapshot stored before the intake stream has no position
  return {
    at: at as Millis,
    projects: (projects as [Project, Channel[], Check[]][]).map(([project, channels, checks]) => ({ project, channels, checks })),
    intake: typeof intake === "number" ? intake : 0,
  };
}

/** Loads a snapshot into a fresh shard (its projects, channels in order, checks and their deadlines). */
export function loadSnapshot(shard: Shard, snapshot: PartitionSnapshot): void {
  for (const { project, channels, checks } of snapshot.projects) shard.load(project, channels, checks);
}

export function encodeSnapshotHead(head: SnapshotHead): Uint8Array {
  return packr.pack([RECORD_IDS.snapshotHead, head.logSequence, head.firstChunk, head.chunks, head.bytes]);
}

export function decodeSnapshotHead(bytes: Uint8Array): SnapshotHead {
  const [logSequence, firstChunk, chunks, size] = open(bytes, "snapshotHead", 4);
  return { logSequence: logSequence as number, firstChunk: firstChunk as number, chunks: chunks as number, bytes: size as number };
}

/** Decodes a message of the given kind and returns its values after the record id (fields to mostFields of them); throws on any other kind. */
function open(bytes: Uint8Array, kind: RecordKind, fields: number, mostFields = fields): unknown[] {
  const value: unknown = packr.unpack(bytes);
  if (!Array.isArray(value) || value[0] !== RECORD_IDS[kind] || value.length < fields + 1 || value.length > mostFields + 1) {
    throw new Error(`not a partition ${kind} record (record id ${Array.isArray(value) ? String(value[0]) : typeof value})`);
  }
  return value.slice(1);
}

/** A ping's body decodes as a Buffer; the shard and its comparisons expect the plain Uint8Array it was. */
function withPlainBody(command: ShardCommand): ShardCommand {
  if (command.kind !== "ping" || command.ping.body === null) return command;
  return { ...command, ping: { ...command.ping, body: new Uint8Array(command.ping.body) } };
}
