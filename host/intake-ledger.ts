// What a shard keeps of the pings its front ends acknowledged from their intake logs (host/ping-intake.ts):
// those applied here whose changes no commit of its own has made durable yet, kept to apply again when
// the shard is rebuilt after a failed commit, and how far each intake log is applied and durably
// committed. Each commit carries the marks it reaches (IntakeMark); once it is durable, the pings below
// them are let go. The intake log keeps a record until every shard it went to has committed it.
import type { IntakeMark } from "../engine/changes.ts";
import type { PingCommand } from "../engine/commands.ts";

type Unlogged = { readonly writer: string; readonly position: number; readonly command: PingCommand };

export class IntakeLedger {
  readonly #shard: string; // this shard, as intake records name it (persistence/intake.ts intakeShard)
  #unlogged: Unlogged[] = [];
  readonly #applied = new Map<string, number>(); // writer → the last position applied here
  readonly #durable = new Map<string, number>(); // writer → the last position a durable commit holds

  constructor(shard: string) {
    this.#shard = shard;
  }

  /** True while pings are applied that no durable commit holds. */
  get pending(): boolean {
    return this.#unlogged.length > 0;
  }

  /** Records that the ping at `position` of intake log `writer` was applied to the shard. */
  applied(writer: string, position: number, command: PingCommand): void {
    this.#unlogged.push({ writer, position, command });
    this.#applied.set(writer, position);
  }

  /** The commands of the pings applied and not yet durably committed, in the order they were applied. */
  *commands(): Generator<PingCommand> {
    for (const { command } of this.#unlogged) yield command;
  }

  /** The marks a commit taken now reaches: every intake log with pings applied past its durable mark. */
  takeMarks(): IntakeMark[] {
    if (this.#unlogged.length === 0) return [];
    const marks: IntakeMark[] = [];
    for (const [writer, position] of this.#applied) {
      if (position > (this.#durable.get(writer) ?? 0)) marks.push({ writer, shard: this.#shard, position });
    }
    return marks;
  }

  /** Records that a commit holding `marks` is durable: the pings it reaches are no longer kept. */
  logged(marks: readonly IntakeMark[]): void {
    if (marks.length === 0) return;
    for (const { writer, position } of marks) this.#durable.set(writer, Math.max(position, this.#durable.get(writer) ?? 0));
    this.#unlogged = this.#unlogged.filter((u) => u.position > (this.#durable.get(u.writer) ?? 0));
  }

  /** The first position of intake log `writer` that no durable commit holds, or null when it holds every one applied. */
  firstUnlogged(writer: string): number | null {
    return this.#unlogged.find((u) => u.writer === writer)?.position ?? null;
  }
}
