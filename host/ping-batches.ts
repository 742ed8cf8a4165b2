// Pings on their way to the shards: the pings of one event-loop turn go to each shard as one batch, and
// each shard has one batch in flight at a time; pings that arrive meanwhile wait and go together when it
// is answered. Its commit would wait for the one in flight anyway; this way they share a message, a
// wake-up of the worker and an LMDB transaction, which on 2 cores is what limits pings/s.
import type { PingCommand, ShardPingResult } from "../engine/commands.ts";
import type { Millis } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import type { ShardHandle } from "./shard-requests.ts";

type Queued = { command: PingCommand; resolve: (r: Outcome<ShardPingResult>) => void; reject: (e: unknown) => void };

export class PingBatches {
  readonly #shards: readonly ShardHandle[];
  readonly #queues: Queued[][];
  readonly #inFlight: boolean[];
  readonly #inFlightEarliest: (Millis | null)[]; // the earliest stamp of each shard's batch in flight
  #flushScheduled = false;

  constructor(shards: readonly ShardHandle[]) {
    this.#shards = shards;
    this.#queues = shards.map(() => []);
    this.#inFlight = shards.map(() => false);
    this.#inFlightEarliest = shards.map(() => null);
  }

  /** Queues a ping for shard `index`; resolves with its result after its batch's commit. */
  send(index: number, command: PingCommand): Promise<Outcome<ShardPingResult>> {
    return new Promise((resolve, reject) => {
      this.#queues[index].push({ command, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Returns the earliest stamp of the pings waiting to be sent to shard `index`, or null when none waits. */
  earliestWaitingAt(index: number): Millis | null {
    const queue = this.#queues[index];
    let earliest: Millis | null = null;
    for (const { command } of queue) if (earliest === null || command.at < earliest) earliest = command.at;
    return earliest;
  }

  /** Returns the earliest stamp of the pings for shard `index` not yet answered (waiting or in flight), or null. */
  earliestUnansweredAt(index: number): Millis | null {
    const waiting = this.earliestWaitingAt(index),
      inFlight = this.#inFlightEarliest[index];
    return waiting === null ? inFlight : inFlight === null ? waiting : Math.min(waiting, inFlight);
  }

  /** Returns how many pings wait for each shard's batch in flight. */
  queued(): number[] {
    return this.#queues.map((queue) => queue.length);
  }

  /** Sends the queued pings of every shard that has no batch in flight. */
  flush(): void {
    this.#flushScheduled = false;
    this.#queues.forEach((_queue, index) => this.#sendBatch(index));
  }

  #sendBatch(index: number): void {
    const queue = this.#queues[index];
    if (queue.length === 0 || this.#inFlight[index]) return;
    const batch = queue.splice(0, queue.length);
    this.#inFlight[index] = true;
    this.#inFlightEarliest[index] = batch.reduce((earliest, q) => Math.min(earliest, q.command.at), Infinity);
    const done = () => {
      this.#inFlight[index] = false;
      this.#inFlightEarliest[index] = null;
      this.#sendBatch(index);
    };
    this.#shards[index].apply({ kind: "pingBatch", pings: batch.map((q) => q.command) }).then(
      (results) => {
        done();
        results.forEach((result, i) => batch[i].resolve(result));
      },
      (error: unknown) => {
        done();
        batch.forEach((q) => q.reject(error));
      },
    );
  }
}
