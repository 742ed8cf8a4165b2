// A seeded schedule of faults for the cluster checker: the same seed gives the same rounds (kinds, order,
// targets, durations and pauses), so a failing run can be replayed. Every kind is in each schedule once, in
// an order the seed shuffles, with two to four more rounds of kinds the seed picks (a run leaves out the
// rounds that no longer fit before its quiet time).
import { seeded } from "../../bench/scenarios.ts";

export type Fault =
  /** kill -9 of hcd node `node`, started again after `holdMs`. */
  | { readonly kind: "kill-node"; readonly node: number; readonly holdMs: number }
  /** SIGSTOP of the owner of partition `partition` (the index into the run's partitions) for `holdMs` (longer than the lease), then SIGCONT. */
  | { readonly kind: "stop-owner"; readonly partition: number; readonly holdMs: number }
  /** kill -9 of nats-server `server`, started again after `holdMs`. */
  | { readonly kind: "kill-nats"; readonly server: number; readonly holdMs: number }
  /** Node `node`'s connections to NATS dropped and refused for `holdMs`. */
  | { readonly kind: "cut-relay"; readonly node: number; readonly holdMs: number }
  /** Every chunk between node `node` and NATS held `delayMs` for `holdMs`. */
  | { readonly kind: "slow-relay"; readonly node: number; readonly delayMs: number; readonly holdMs: number };

export type Round = { readonly fault: Fault; /** pause before the fault */ readonly afterMs: number };

export const FAULT_KINDS = ["kill-node", "stop-owner", "kill-nats", "cut-relay", "slow-relay"] as const;

/**
 * The rounds for `seed`: nodes and servers are indices below 3, `partition` an index below `partitions`.
 * `leaseMs` bounds the SIGSTOP from below: the paused owner must lose its lease.
 */
export function faultSchedule(seed: number, options: { partitions: number; leaseMs: number }): Round[] {
  const random = seeded(seed);
  const between = (low: number, high: number) => Math.round(low + random() * (high - low));
  const pick = () => Math.floor(random() * 3);
  const kinds: Fault["kind"][] = [...FAULT_KINDS];
  for (let i = kinds.length - 1; i > 0; i--) {
    // Fisher-Yates
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j], kinds[i]];
  }
  const extra = 2 + Math.floor(random() * 3);
  for (let i = 0; i < extra; i++) kinds.splice(between(0, kinds.length), 0, FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)]);
  return kinds.map((kind) => ({ fault: faultOf(kind), afterMs: between(300, 2_000) }));

  function faultOf(kind: Fault["kind"]): Fault {
    switch (kind) {
      case "kill-node":
        return { kind, node: pick(), holdMs: between(500, 3_000) };
      case "stop-owner":
        return { kind, partition: Math.floor(random() * options.partitions), holdMs: options.leaseMs + between(1_000, 3_000) };
      case "kill-nats":
        return { kind, server: pick(), holdMs: between(500, 3_000) };
      case "cut-relay":
        return { kind, node: pick(), holdMs: between(1_500, 4_000) };
      // up to 1.5 s a chunk: past the 1 s a lease renewal waits for its answer, so a renewal can time out
      // at the node and still land (the trigger of a re-takeover while an append is in flight)
      case "slow-relay":
        return { kind, node: pick(), delayMs: between(50, 1_500), holdMs: between(3_000, 6_000) };
    }
  }
}

/** One line per round, for the run's output. */
export function describeRound(round: Round): string {
  const { fault } = round;
  const target =
    "node" in fault
      ? `node ${fault.node}`
      : "server" in fault
        ? `nats-server ${fault.server}`
        : `owner of the run's partition #${fault.partition}`;
  const delay = fault.kind === "slow-relay" ? `, ${fault.delayMs} ms per chunk` : "";
  return `after ${round.afterMs} ms: ${fault.kind} ${target} for ${fault.holdMs} ms${delay}`;
}
