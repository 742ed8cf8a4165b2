// The pings a partition's owner applied and has not stored in its history yet, held per check, listed with the
// stored ones, let go once their segments are acknowledged (the log holds them meanwhile).
import type { PingWrite } from "../engine/changes.ts";
import { LIMITS } from "../engine/model.ts";
import type { PingRecord } from "../engine/model.ts";

export type HeldPing = { readonly record: PingRecord; readonly body: Uint8Array | null };

/** Bytes a held ping counts for besides its body: its record, roughly, as stored. */
const RECORD_BYTES = 128;

/** Roughly how many bytes a ping takes held or stored: its record and its body. */
export function sizeOf(ping: HeldPing): number {
  return RECORD_BYTES + (ping.body?.length ?? 0);
}

export class PingTail {
  /** Per check, its held pings in increasing number. */
  readonly #byCheck = new Map<string, HeldPing[]>();
  /** Per check, the newest ping number taken to be stored (still held until released). */
  readonly #takenUpTo = new Map<string, number>();
  #bytes = 0;

  /** Roughly how many bytes are held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Holds a record's pings and lets go of its deleted checks' (a check deleted by the same record keeps none). */
  apply(pings: readonly PingWrite[], deletedChecks: readonly { readonly uuid: string }[]): void {
    for (const ping of pings) {
      const held = this.#byCheck.get(ping.checkUuid) ?? [];
      if (held.length === 0) this.#byCheck.set(ping.checkUuid, held);
      const entry = { record: ping.record, body: ping.body === null || ping.body.length === 0 ? null : ping.body };
      held.push(entry);
      this.#bytes += sizeOf(entry);
      // the API never lists more than a check's newest maxPingsListed: older ones need not be stored
      if (held.length > LIMITS.maxPingsListed) this.#bytes -= sizeOf(held.shift()!);
    }
    for (const { uuid } of deletedChecks) this.#drop(uuid);
  }

  /**
   * The held pings not taken before, per check oldest first, now taken: a later take() leaves them out, so
   * two stores under way never store the same ping. They stay held (and listed) until released.
   */
  take(): Map<string, HeldPing[]> {
    const taken = new Map<string, HeldPing[]>();
    for (const [uuid, held] of this.#byCheck) {
      const after = this.#takenUpTo.get(uuid) ?? 0;
      const pings = held.filter((ping) => ping.record.n > after);
      if (pings.length === 0) continue;
      taken.set(uuid, pings);
      this.#takenUpTo.set(uuid, pings[pings.length - 1].record.n);
    }
    return taken;
  }

  /** Lets go of pings now stored: per check, those numbered up to the newest of `stored`. */
  release(stored: ReadonlyMap<string, readonly HeldPing[]>): void {
    for (const [uuid, pings] of stored) {
      const held = this.#byCheck.get(uuid);
      if (held === undefined || pings.length === 0) continue;
      const upTo = pings[pings.length - 1].record.n;
      let count = 0;
      while (count < held.length && held[count].record.n <= upTo) this.#bytes -= sizeOf(held[count++]);
      held.splice(0, count);
      if (held.length > 0) continue;
      this.#byCheck.delete(uuid);
      if (this.#takenUpTo.get(uuid) === upTo) this.#takenUpTo.delete(uuid);
    }
  }

  /** The check's newest held pings, newest first, at most `limit`. */
  newest(uuid: string, limit: number): HeldPing[] {
    const held = this.#byCheck.get(uuid) ?? [];
    return held.slice(Math.max(0, held.length - limit)).reverse();
  }

  /** Held ping n of the check, or undefined when it is not held. */
  find(uuid: string, n: number): HeldPing | undefined {
    const held = this.#byCheck.get(uuid);
    if (held === undefined || held.length === 0) return undefined;
    const index = n - held[0].record.n; // held pings are numbered one after another
    return held[index]?.record.n === n ? held[index] : held.find((ping) => ping.record.n === n);
  }

  clear(): void {
    this.#byCheck.clear();
    this.#takenUpTo.clear();
    this.#bytes = 0;
  }

  #drop(uuid: string): void {
    for (const ping of this.#byCheck.get(uuid) ?? []) this.#bytes -= sizeOf(ping);
    this.#byCheck.delete(uuid);
    this.#takenUpTo.delete(uuid);
  }
}
