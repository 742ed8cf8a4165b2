// A partition's Shard as its log has been applied to it: the last position applied, the latest instant, how
// far the intake stream's pings are in, and the records since the last snapshot.
import type { Changes } from "../engine/changes.ts";
import type { ShardCommand, ShardResultOf } from "../engine/commands.ts";
import type { Millis } from "../engine/model.ts";
import { Shard } from "../engine/shard.ts";
import type { PartitionRecord, PartitionSnapshot } from "./partition-codec.ts";
import { loadSnapshot, snapshotOf } from "./partition-codec.ts";
import type { EffectChain } from "./record-effects.ts";
import type { AppliedRecord } from "./replica-types.ts";
import type { StoredSnapshot } from "./snapshot-store.ts";

export class AppliedShard {
  readonly #partition: number;
  readonly #onApplied: (applied: AppliedRecord) => void;
  readonly #effects: EffectChain;
  #shard: Shard | null = null;
  #applied = 0; // position of the last record applied
  #latestAt: Millis = 0; // latest instant a command applied carried
  #intakeApplied = 0; // how far the intake stream's pings are in the log and applied (the records' largest position)
  #snapshotBase = 0; // position the last stored (or loaded) snapshot covers
  #sinceSnapshot = 0; // records applied after the state the last stored (or loaded) snapshot holds: a message holds many
  #ids: string[] = []; // the ids the record being applied hands out

  constructor(partition: number, onApplied: (applied: AppliedRecord) => void, effects: EffectChain) {
    this.#partition = partition;
    this.#onApplied = onApplied;
    this.#effects = effects;
  }

  get applied(): number {
    return this.#applied;
  }

  get latestAt(): Millis {
    return this.#latestAt;
  }

  get intakeApplied(): number {
    return this.#intakeApplied;
  }

  get snapshotBase(): number {
    return this.#snapshotBase;
  }

  get sinceSnapshot(): number {
    return this.#sinceSnapshot;
  }

  get loaded(): boolean {
    return this.#shard !== null;
  }

  /** Starts again from a stored snapshot, or from nothing at `now`. */
  reset(stored: StoredSnapshot | null, now: Millis): void {
    const shard = new Shard({ now: stored?.snapshot.at ?? now, newId: () => this.#takeId() });
    if (stored !== null) loadSnapshot(shard, stored.snapshot);
    this.#shard = shard;
    this.#applied = stored?.logSequence ?? 0;
    this.#snapshotBase = this.#applied;
    this.#sinceSnapshot = 0;
    this.#latestAt = stored?.snapshot.at ?? 0;
    this.#intakeApplied = stored?.snapshot.intake ?? 0;
  }

  /** A takeover's fence marker at `position`: nothing below it is missing, so it counts as applied. */
  fenced(position: number): void {
    this.#applied = Math.max(this.#applied, position);
  }

  /**
   * Applies the record at `index` of the log message at `position` (a message's records in one go, index 0
   * first), reports it (onApplied) and starts its effects; returns the shard's answer, what it changed
   * and what its submitter waits for. Throws on a record out of order.
   */
  apply(
    position: number,
    index: number,
    record: PartitionRecord,
    replayed: boolean,
  ): { result: ShardResultOf<ShardCommand>; changes: Changes; beforeAnswer: Promise<void> } {
    const shard = this.#current();
    if (index === 0 ? position <= this.#applied : position !== this.#applied)
      throw new Error(`partition ${this.#partition}: record ${position}.${index} after ${this.#applied}: out of order`);
    this.#ids = [...record.ids];
    const result = shard.apply(record.command);
    const changes = shard.takeChanges();
    this.#applied = position;
    this.#sinceSnapshot += 1;
    this.#latestAt = Math.max(this.#latestAt, record.command.kind === "ping" ? record.command.ping.at : record.command.at);
    if (record.intake !== undefined) this.#intakeApplied = Math.max(this.#intakeApplied, record.intake);
    const applied: AppliedRecord = { position, index, command: record.command, changes, replayed };
    this.#onApplied(applied);
    return { result, changes, beforeAnswer: this.#effects.start(applied) };
  }

  /** Answers a query from the shard as it is now. */
  read<T>(query: (shard: Shard) => T): T {
    return query(this.#current());
  }

  /** The state at the last applied position, to be stored as a snapshot covering it, and how many records it takes in. */
  snapshot(): { covered: number; state: PartitionSnapshot; taken: number } {
    return { covered: this.#applied, state: snapshotOf(this.#current(), this.#latestAt, this.#intakeApplied), taken: this.#sinceSnapshot };
  }

  /** A snapshot covering `covered` and taking in `taken` records was stored. */
  snapshotStored(covered: number, taken: number): void {
    this.#snapshotBase = covered;
    this.#sinceSnapshot = Math.max(0, this.#sinceSnapshot - taken);
  }

  #current(): Shard {
    if (this.#shard === null) throw new Error(`partition ${this.#partition}: no shard to apply to`);
    return this.#shard;
  }

  #takeId(): string {
    const id = this.#ids.shift();
    if (id === undefined) throw new Error(`partition ${this.#partition}: a command handed out more ids than its record carries`);
    return id;
  }
}
