// What each applied record did outside the shard (its history, notifications, directory keys), started in
// log order by a hook and chained, so that "stored" always means every earlier record's effects are too.
import type { AppliedRecord, RecordEffects } from "./replica-types.ts";

export class EffectChain {
  readonly #effectsOf: ((applied: AppliedRecord) => RecordEffects) | null;
  readonly #onFailure: (error: unknown) => void;
  /** The effects of the records started so far, chained in log order (rejected once one failed). */
  #stored: Promise<void> = Promise.resolve();
  /** The parts of those effects that their submitters wait for, chained in log order. */
  #beforeAnswer: Promise<void> = Promise.resolve();
  /** Records at or below this position had their effects carried out by an earlier owner. */
  #from = 0;

  /** `effectsOf`: the hook (none: no record has effects); `onFailure`: called once for each chain that fails. */
  constructor(effectsOf: ((applied: AppliedRecord) => RecordEffects) | null, onFailure: (error: unknown) => void) {
    this.#effectsOf = effectsOf;
    this.#onFailure = onFailure;
  }

  /** Every record's effects started so far, stored. */
  get stored(): Promise<void> {
    return this.#stored;
  }

  /** Starts a new chain (a takeover's): the effects of records from position `from` on are carried out again. */
  restart(from: number): void {
    this.#stored = Promise.resolve();
    this.#beforeAnswer = Promise.resolve();
    this.#from = from;
  }

  /**
   * Starts the record's effects now, without waiting for the earlier ones (the stores keep log order
   * while earlier writes are in flight), unless an earlier owner carried them out; returns what its
   * submitter waits for: its part, and every earlier record's. The message at `from` may be stored in part,
   * so its effects are carried out again.
   */
  start(applied: AppliedRecord): Promise<void> {
    if (this.#effectsOf !== null && applied.position >= this.#from) {
      const started = this.#effectsOf(applied);
      if (started !== null) {
        const [stored, beforeAnswer] = started instanceof Promise ? [started, started] : [started.stored, started.beforeAnswer];
        this.#stored = Promise.all([this.#stored, stored]).then(() => {});
        this.#stored.catch(this.#onFailure);
        this.#beforeAnswer = Promise.all([this.#beforeAnswer, beforeAnswer]).then(() => {});
      }
    }
    return this.#beforeAnswer;
  }
}
