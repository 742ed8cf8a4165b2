// The messages of a partition's history stream (partition-history.ts): their subjects, their msgpack
// values (each opening with a fixed message id) and the log position they carry in a header.
import type { StoredMsg } from "@nats-io/jetstream";
import type { Flip, PingRecord } from "../engine/model.ts";
import { sizeOf } from "./ping-tail.ts";
import type { HeldPing } from "./ping-tail.ts";
import { wirePackr as packr } from "./wire-packr.ts";

/** The first value of every message: what the rest is. Never renumbered; a new format gets a new id. */
const MESSAGE_IDS = { ping: 1, flip: 2, deleted: 3, segment: 4 } as const;

/** The header carrying the log position of the record a message stores. */
export const POSITION_HEADER = "Hcd-Position";

/** Most pings, and bytes of them, in one segment message (a larger ping goes alone: it fit in the log's message). */
export const SEGMENT_PINGS = 250;
export const SEGMENT_BYTES = 256 * 1024;

export type HistoryKind = "ping" | "flip" | "del";
export type DecodedPing = { readonly record: PingRecord; readonly body: Uint8Array | null };

/** A check's subject of one kind: `<stream subject>.ping|flip|del.<check uuid>`; throws on a uuid a subject cannot carry. */
export function historySubject(subject: string, kind: HistoryKind, checkUuid: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(checkUuid)) throw new Error(`not a check uuid a subject can carry: ${JSON.stringify(checkUuid)}`);
  return `${subject}.${kind}.${checkUuid}`;
}

/** A flip's message: [2, the flip]. */
export function encodeFlipMessage(flip: Flip): Uint8Array {
  return packr.pack([MESSAGE_IDS.flip, flip]);
}

/** A deleted check's message: [3, its uuid]. */
export function encodeDeletedMessage(uuid: string): Uint8Array {
  return packr.pack([MESSAGE_IDS.deleted, uuid]);
}

/** A segment's message: [4, its pings' records, their bodies (null for none)], pings in increasing number. */
export function encodeSegmentMessage(pings: readonly HeldPing[]): Uint8Array {
  return packr.pack([MESSAGE_IDS.segment, pings.map((ping) => ping.record), pings.map((ping) => ping.body)]);
}

/**
 * The pings of a message on a ping subject, in increasing number: a segment's, or the one of a ping's
 * message ([1, its record, its body or null], as stored one ping a message before segments: still read).
 */
export function decodePings(bytes: Uint8Array): DecodedPing[] {
  const value: unknown = packr.unpack(bytes);
  if (Array.isArray(value) && value[0] === MESSAGE_IDS.ping && value.length === 3)
    return [{ record: value[1] as PingRecord, body: value[2] === null ? null : new Uint8Array(value[2] as Uint8Array) }];
  const [id, records, bodies] = Array.isArray(value) ? (value as [unknown, unknown, unknown]) : [];
  if (
    id !== MESSAGE_IDS.segment ||
    !Array.isArray(records) ||
    !Array.isArray(bodies) ||
    records.length === 0 ||
    records.length !== bodies.length
  ) {
    throw new Error(`not a history ping or segment message (message id ${Array.isArray(value) ? String(value[0]) : typeof value})`);
  }
  return records.map((record: PingRecord, i) => ({ record, body: bodies[i] === null ? null : new Uint8Array(bodies[i] as Uint8Array) }));
}

export function decodeFlip(bytes: Uint8Array): Flip {
  return open(bytes, "flip", 1)[0] as Flip;
}

/** Splits a check's held pings into segments of at most SEGMENT_PINGS and SEGMENT_BYTES (a larger ping alone). */
export function segmentsOf(pings: readonly HeldPing[]): HeldPing[][] {
  const segments: HeldPing[][] = [];
  let current: HeldPing[] = [],
    bytes = 0;
  for (const ping of pings) {
    const size = sizeOf(ping);
    if (current.length > 0 && (current.length >= SEGMENT_PINGS || bytes + size > SEGMENT_BYTES)) {
      segments.push(current);
      current = [];
      bytes = 0;
    }
    current.push(ping);
    bytes += size;
  }
  if (current.length > 0) segments.push(current);
  return segments;
}

/** The number of the newest of a message's pings (they are in increasing number). */
export function newestOf(pings: readonly DecodedPing[]): number {
  return pings[pings.length - 1].record.n;
}

/** The newest `limit` of the records, newest first, each number once (a replay may have stored some twice). */
export function newestFirst(records: readonly PingRecord[], limit: number): PingRecord[] {
  const byNumber = new Map(records.map((record) => [record.n, record]));
  return [...byNumber.values()].sort((a, b) => b.n - a.n).slice(0, limit);
}

/** The log position a stored message carries; throws when it carries none. */
export function positionOf(message: StoredMsg): number {
  const value = Number(message.header?.get(POSITION_HEADER));
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`message ${message.seq} of ${message.subject} carries no position`);
  return value;
}

/** Decodes a message of the given kind and returns its values after the message id; throws on any other kind. */
function open(bytes: Uint8Array, kind: keyof typeof MESSAGE_IDS, fields: number): unknown[] {
  const value: unknown = packr.unpack(bytes);
  if (!Array.isArray(value) || value[0] !== MESSAGE_IDS[kind] || value.length !== fields + 1) {
    throw new Error(`not a history ${kind} message (message id ${Array.isArray(value) ? String(value[0]) : typeof value})`);
  }
  return value.slice(1);
}
