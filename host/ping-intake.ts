// Pings by check uuid on their way to the shards, acknowledged by the front end itself: each is appended
// to this process's intake log (persistence/intake.ts), and every ping of an event-loop turn shares one
// write and sync, whichever shard owns it. Once durable there it is answered, and handed to its shard
// within HANDOFF_MS, together with the others of that time (one message, one wake-up of the shard's
// thread), or at once when any other request goes to that shard: the handles this gives the pool send
// the pings waiting first, so every request sees the pings acknowledged before it. The shard applies
// them in memory and writes their changes with its next commit; the intake log lets a record go once
// every shard it went to has committed it.
//
// Why: measured on this machine, a shard's own synced write for each group of pings was most of a
// ping's cost and the limit on pings/s (its thread waited for the disk while pings queued behind it),
// and at an everyday rate waking the shard's thread for each ping cost as much again.
// A ping by slug may create its check or be refused by what only the shard knows: it keeps the shard's
// committed path (ping-batches.ts).
import { randomUUID } from "node:crypto";
import type { PingCommand } from "../engine/commands.ts";
import type { Millis } from "../engine/model.ts";
import type { FileLog } from "../persistence/file-log.ts";
import { encodeIntake, intakeShard, intakeWriters, openIntakeLog } from "../persistence/intake.ts";
import type { Durability } from "../persistence/open.ts";
import { StampCounts } from "../lib/stamp-counts.ts";
import { log } from "./log.ts";
import type { ShardHandle } from "./shard-requests.ts";
import { WriteFailures } from "./write-failures.ts";

// How long an acknowledged ping may wait for its shard (when no other request for the shard comes first;
// the default of the `handOffMs` option). Deadlines wait for the pings stamped before them: see
// `earliestUnhandedAt` and host/deadline-ticker.ts.
export const HANDOFF_MS = 50;

// How often the log starts a new segment and lets go of the segments every shard has committed.
const TRIM_EVERY_MS = 10_000;
const PROBE_BYTES = 4096; // the room a probe asks for: a ping's record is usually far less

// The intake writers of this thread's pools, running: the others in a data directory were left by a crash.
const running = new Set<string>();

/** Returns the intake logs in `dataDir` that no running process writes: what a crash left, to replay. */
export function leftIntake(dataDir: string): string[] {
  return intakeWriters(dataDir)
    .filter(({ writer, own }) => !own || !running.has(writer))
    .map(({ writer }) => writer);
}

export class PingIntake {
  readonly #shards: readonly ShardHandle[];
  readonly #handles: readonly ShardHandle[];
  readonly #writer = randomUUID();
  readonly #log: FileLog;
  readonly #writes: WriteFailures;
  readonly #queues: { readonly position: number; readonly record: Uint8Array }[][]; // acknowledged, not yet handed over
  #handOff: ReturnType<typeof setTimeout> | null = null;
  #posted = 0; // the last position handed to a shard
  #inFlight = 0; // appends not yet resolved
  readonly #writing: StampCounts[]; // per shard, the stamps of its pings whose append has not resolved yet
  #trimming = false;
  readonly #trimTimer: ReturnType<typeof setInterval>;
  readonly #handOffMs: number;

  /**
   * `trimEveryMs`: how often committed segments are let go (default 10 s; tests make it short).
   * `handOffMs`: how long an acknowledged ping may wait for its shard (default HANDOFF_MS; tests make it
   * long to keep pings waiting while the log is trimmed).
   */
  constructor(
    dataDir: string,
    durability: Durability,
    shards: readonly ShardHandle[],
    options: { trimEveryMs?: number; handOffMs?: number } = {},
  ) {
    this.#shards = shards;
    this.#handOffMs = options.handOffMs ?? HANDOFF_MS;
    this.#log = openIntakeLog(dataDir, this.#writer, durability === "flush");
    this.#writes = new WriteFailures("ping intake", dataDir);
    this.#queues = shards.map(() => []);
    this.#writing = shards.map(() => new StampCounts());
    this.#handles = shards.map((shard, index) => ({
      apply: (request) => {
        this.#post(index);
        return shard.apply(request);
      },
    }));
    running.add(this.#writer);
    this.#trimTimer = setInterval(() => void this.#trim(), options.trimEveryMs ?? TRIM_EVERY_MS);
    this.#trimTimer.unref();
  }

  /** The shards' handles for every other request: each first hands its shard the pings waiting for it. */
  handles(): ShardHandle[] {
    return [...this.#handles];
  }

  /**
   * Returns the earliest stamp of shard `index`'s pings that are not yet on their way to it (their write
   * has not returned), or null when none: the shard may judge deadlines up to just before it. Pings
   * written and waiting are handed over before any other request to the shard (`handles`), so they need
   * no bound here.
   */
  earliestUnhandedAt(index: number): Millis | null {
    return this.#writing[index].earliest();
  }

  /** True while intake writes fail (an episode: the status endpoint answers 500). */
  get failing(): boolean {
    return this.#writes.failing;
  }

  /**
   * Makes a ping to shard `index` durable in the intake log, then hands it to the shard; resolves after
   * both (the ping may be acknowledged). Rejects with a StoreUnavailableError when the log can't be written.
   */
  async send(index: number, projectId: string, command: PingCommand): Promise<void> {
    const record = encodeIntake({ shard: intakeShard(index, this.#shards.length), projectId, command });
    if (!this.#writes.mayTry(record.length)) {
      this.#writes.refused();
      throw this.#writes.error();
    }
    this.#inFlight++;
    const writing = this.#writing[index];
    writing.add(command.at);
    let position: number;
    try {
      [position] = await this.#log.append([record]);
    } catch (error) {
      this.#writes.failed("commit", error);
      throw this.#writes.error();
    } finally {
      this.#inFlight--;
      writing.remove(command.at);
    }
    this.#writes.succeeded("commit");
    this.#queues[index].push({ position, record });
    if (this.#handOff === null) {
      this.#handOff = setTimeout(() => this.#postAll(), this.#handOffMs);
      this.#handOff.unref();
    }
  }

  /**
   * Throws a StoreUnavailableError while intake writes fail; when the file system has room again, first
   * tries a write of an empty record (a replay skips it): its success ends the episode.
   */
  async probe(): Promise<void> {
    if (!this.#writes.failing) return;
    if (!this.#writes.mayTry(PROBE_BYTES)) throw this.#writes.error();
    try {
      await this.#log.append([new Uint8Array(0)]);
    } catch (error) {
      this.#writes.failed("commit", error);
      throw this.#writes.error();
    }
    this.#writes.succeeded("commit");
  }

  /** Waits until every append made so far is written and handed to its shard (or failed). */
  async drain(): Promise<void> {
    while (this.#inFlight > 0) await new Promise((resolve) => setImmediate(resolve));
    this.#postAll();
  }

  /**
   * Stops the log after the shards have committed what they were handed (the pool asks them first, in
   * `committedBelow`): its files go when every record is in a shard's log, else they stay for a restart.
   */
  async close(): Promise<void> {
    clearInterval(this.#trimTimer);
    await this.drain();
    const below = await this.#committedBelow();
    await this.#log.close(below);
    running.delete(this.#writer);
  }

  #postAll(): void {
    if (this.#handOff !== null) clearTimeout(this.#handOff);
    this.#handOff = null;
    for (let index = 0; index < this.#queues.length; index++) this.#post(index);
  }

  /** Hands shard `index` the pings waiting for it. */
  #post(index: number): void {
    const queue = this.#queues[index];
    if (queue.length === 0) return;
    this.#queues[index] = [];
    this.#posted = Math.max(this.#posted, queue[queue.length - 1].position);
    const ends: number[] = [];
    let size = 0;
    for (const { record } of queue) ends.push((size += record.length));
    const bytes = new Uint8Array(size); // a buffer of its own: a view into a larger one would be copied whole
    queue.forEach(({ record }, i) => bytes.set(record, i === 0 ? 0 : ends[i - 1]));
    const batch = { positions: queue.map((q) => q.position), ends, bytes };
    this.#shards[index]
      .apply({ kind: "intakePings", writer: this.#writer, batch })
      .catch((error: unknown) => log.error({ err: error, shard: index }, "a shard failed to apply acknowledged pings"));
  }

  /** Returns the position below which every record handed to a shard is in that shard's log (it commits them first). */
  async #committedBelow(): Promise<number> {
    // the pings not yet handed over: the first of them bounds it, else everything handed so far does
    const waiting = this.#queues.flatMap((queue) => (queue.length === 0 ? [] : [queue[0].position]));
    const handed = Math.min(this.#posted + 1, ...waiting); // read before asking: the shards answer for everything handed before
    const firsts = await Promise.all(this.#shards.map((shard) => shard.apply({ kind: "commitIntake", writer: this.#writer })));
    return Math.min(handed, ...firsts.map((first) => first ?? handed));
  }

  /** Starts a new segment and removes the older ones every shard has committed (one run at a time). */
  async #trim(): Promise<void> {
    if (this.#trimming) return;
    this.#trimming = true;
    try {
      this.#log.roll();
      await this.#log.truncateBelow(await this.#committedBelow());
    } catch (error) {
      log.warn({ err: error }, "the intake log could not let go of committed segments");
    } finally {
      this.#trimming = false;
    }
  }
}
