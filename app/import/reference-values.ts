// Column values of a Healthchecks database as SQLite (sql.js) and PostgreSQL (pg) hand them over, read
// into one form: Django stores uuids as 32 hex digits (SQLite) or the uuid type (PostgreSQL), durations
// as integer microseconds (SQLite, or a database converted by pgloader) or intervals (PostgreSQL),
// datetimes as naive UTC text (SQLite) or timestamptz, booleans as 0/1 or true/false, binary as a BLOB or
// bytea. A value of another type is a malformed row: each reader throws RowError, which names the column.
import { uuidOf } from "./channel-values.ts";

/** A column whose value is not what Healthchecks stores there. */
export class RowError extends Error {}

export type Row = Readonly<Record<string, unknown>>;

/** The uuid in `column` (lower-case, with dashes). */
export function uuidAt(row: Row, column: string): string {
  const id = uuidOf(row[column]);
  if (id === null) throw new RowError(`${column} is not a uuid`);
  return id;
}

/** The uuid in `column`, or null when it is NULL or empty. */
export function optionalUuidAt(row: Row, column: string): string | null {
  const value = row[column];
  return value === null || value === undefined || value === "" ? null : uuidAt(row, column);
}

/** The text in `column` ("" for NULL, or when the column is absent in an older schema); `max` characters at most. */
export function textAt(row: Row, column: string, max = Infinity): string {
  const value = row[column] ?? "";
  if (typeof value !== "string") throw new RowError(`${column} is not text`);
  if ([...value].length > max) throw new RowError(`${column} is longer than ${max} characters`);
  return value;
}

/** The integer in `column` (int8 arrives as text from pg), or `fallback` for NULL or an absent column. */
export function integerAt<T extends number | null>(row: Row, column: string, fallback: T): number | T {
  const value = row[column];
  if (value === null || value === undefined) return fallback;
  const n = typeof value === "string" && /^-?\d{1,16}$/.test(value) ? Number(value) : typeof value === "bigint" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) throw new RowError(`${column} is not an integer`);
  return n;
}

/** The boolean in `column` (0/1 or a boolean), or `fallback` for NULL or an absent column. */
export function booleanAt(row: Row, column: string, fallback: boolean): boolean {
  const value = row[column];
  if (value === null || value === undefined) return fallback;
  if (value === true || value === 1 || value === "1" || value === "t") return true;
  if (value === false || value === 0 || value === "0" || value === "f") return false;
  throw new RowError(`${column} is not a boolean`);
}

const NAIVE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:?\d{2})?$/;

/** The instant in `column` in epoch ms, or null for NULL: a Date (pg), or naive UTC text (SQLite), or text with an offset. */
export function instantAt(row: Row, column: string): number | null {
  const value = row[column];
  if (value === null || value === undefined) return null;
  if (value instanceof Date) {
    if (!Number.isFinite(value.getTime())) throw new RowError(`${column} is not a date and time`);
    return value.getTime();
  }
  const m = typeof value === "string" ? NAIVE.exec(value) : null;
  if (m === null) throw new RowError(`${column} is not a date and time`);
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  const local = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(Number(`0.${m[7] ?? "0"}`) * 1000));
  const back = new Date(local);
  if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59)
    throw new RowError(`${column} is not a date and time`);
  const zone = m[8];
  if (zone === undefined || zone === "Z") return local;
  const digits = zone.slice(1).replace(":", "");
  const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  return zone[0] === "+" ? local - offset : local + offset;
}

/** The duration in `column` in milliseconds, or null for NULL: integer microseconds, or a PostgreSQL interval. */
export function durationAt(row: Row, column: string): number | null {
  const value = row[column];
  if (value === null || value === undefined) return null;
  if (typeof value === "object" && !(value instanceof Uint8Array)) {
    // pg's interval: { years?, months?, days?, hours?, minutes?, seconds?, milliseconds? } (Django stores days and below)
    const parts = value as Record<string, unknown>;
    const part = (name: string) => {
      const n = parts[name] ?? 0;
      if (typeof n !== "number" || !Number.isFinite(n)) throw new RowError(`${column} is not a duration`);
      return n;
    };
    if (part("years") !== 0 || part("months") !== 0) throw new RowError(`${column} is a duration in months or years`);
    return Math.round(
      ((part("days") * 24 + part("hours")) * 60 + part("minutes")) * 60_000 + part("seconds") * 1000 + part("milliseconds"),
    );
  }
  const micros = integerAt(row, column, null);
  if (micros === null || micros < 0) throw new RowError(`${column} is not a duration`);
  return Math.round(micros / 1000);
}

/** The bytes in `column`: a BLOB or bytea (or text in older schemas), null for NULL. */
export function bytesAt(row: Row, column: string): Uint8Array | null {
  const value = row[column];
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return value;
  if (typeof value === "string") return new TextEncoder().encode(value);
  throw new RowError(`${column} is not binary`);
}
