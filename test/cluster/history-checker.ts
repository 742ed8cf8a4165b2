// The assertions of the cluster fault-injection checker, as a pure function of what a run recorded and
// read back: which pings were sent and acknowledged, each check's ping log, n_pings and flips, and every
// node's dump of every project. It returns every violation found (none: the history holds), so that a run
// reports all it saw at once and a unit test can feed it histories that must fail.

/** One flip as the API shows it: its instant (epoch ms) and whether the check went up. */
export type Flip = { readonly at: number; readonly up: boolean };

export type CheckHistory = {
  readonly uuid: string;
  /** Every rid sent to this check, acknowledged or not. */
  readonly sent: readonly string[];
  /** The rids answered 200: each must be in the log exactly once. */
  readonly acked: readonly string[];
  /** The rid of every ping in the check's log (null for a ping without one). */
  readonly log: readonly (string | null)[];
  readonly nPings: number;
  /** Oldest first, as the API lists them. */
  readonly flips: readonly Flip[];
  /**
   * A check deliberately starved (its run started and never finished): it must go down once, at its due
   * time, which lies between `from` and `to` (the instants before and after the start ping was sent).
   * Absent: the check was pinged on time and must never go down.
   */
  readonly starved?: { readonly dueFrom: number; readonly dueTo: number };
};

export type History = {
  readonly checks: readonly CheckHistory[];
  /** Per project, each node's dump of it (node name → dump text). */
  readonly dumps: readonly { readonly project: string; readonly byNode: Readonly<Record<string, string>> }[];
  /** How far (ms) a starved check's down flip may lie outside its due window (the API's timestamps are whole seconds). */
  readonly dueToleranceMs: number;
};

export type ViolationKind =
  | "lost"
  | "duplicate"
  | "unknown-rid"
  | "count"
  | "disagree"
  | "flip-order"
  | "flip-not-alternating"
  | "false-down"
  | "missed-down"
  | "down-off-time";

export type Violation = { readonly kind: ViolationKind; readonly subject: string; readonly detail: string };

/** Returns every violation of the cluster's guarantees that the history shows. */
export function violationsOf(history: History): Violation[] {
  const violations: Violation[] = [];
  const report = (kind: ViolationKind, subject: string, detail: string) => violations.push({ kind, subject, detail });
  for (const check of history.checks) {
    const subject = `check ${check.uuid}`;
    const logged = new Map<string, number>();
    for (const rid of check.log) if (rid !== null) logged.set(rid, (logged.get(rid) ?? 0) + 1);
    const sent = new Set(check.sent);
    const lost = check.acked.filter((rid) => !logged.has(rid));
    if (lost.length > 0) report("lost", subject, `${lost.length} acknowledged ping(s) not in the log: ${lost.slice(0, 5).join(", ")}`);
    const twice = [...logged].filter(([, n]) => n > 1);
    if (twice.length > 0)
      report(
        "duplicate",
        subject,
        `rid(s) in the log more than once: ${twice
          .slice(0, 5)
          .map(([rid, n]) => `${rid} ×${n}`)
          .join(", ")}`,
      );
    const unknown = [...logged.keys()].filter((rid) => !sent.has(rid));
    if (unknown.length > 0)
      report("unknown-rid", subject, `rid(s) in the log that were never sent to this check: ${unknown.slice(0, 5).join(", ")}`);
    if (check.nPings !== check.log.length) report("count", subject, `n_pings ${check.nPings}, but the log holds ${check.log.length}`);
    flipViolations(check, history.dueToleranceMs, (kind, detail) => report(kind, subject, detail));
  }
  for (const { project, byNode } of history.dumps) {
    const nodes = Object.keys(byNode).sort();
    for (const node of nodes.slice(1)) {
      const difference = firstDifference(byNode[nodes[0]], byNode[node]);
      if (difference !== null) report("disagree", `project ${project}`, `node ${node} differs from node ${nodes[0]}: ${difference}`);
    }
  }
  return violations;
}

function flipViolations(check: CheckHistory, toleranceMs: number, report: (kind: ViolationKind, detail: string) => void): void {
  const { flips } = check;
  for (let i = 1; i < flips.length; i++) {
    if (flips[i].at < flips[i - 1].at)
      report("flip-order", `flip ${i} at ${iso(flips[i].at)} before flip ${i - 1} at ${iso(flips[i - 1].at)}`);
    if (flips[i].up === flips[i - 1].up)
      report(
        "flip-not-alternating",
        `flips ${i - 1} and ${i} both ${flips[i].up ? "up" : "down"} (${iso(flips[i - 1].at)}, ${iso(flips[i].at)})`,
      );
  }
  const downs = flips.filter((f) => !f.up);
  if (check.starved === undefined) {
    if (downs.length > 0) report("false-down", `pinged on time, yet down at ${downs.map((f) => iso(f.at)).join(", ")}`);
    return;
  }
  const { dueFrom, dueTo } = check.starved;
  if (downs.length === 0) {
    report("missed-down", `starved, due between ${iso(dueFrom)} and ${iso(dueTo)}, never went down`);
    return;
  }
  const first = downs[0].at;
  if (first < dueFrom - toleranceMs || first > dueTo + toleranceMs) {
    report("down-off-time", `down at ${iso(first)}, due between ${iso(dueFrom)} and ${iso(dueTo)} (±${toleranceMs} ms)`);
  }
  if (downs.length > 1)
    report("false-down", `starved checks go down once, yet down ${downs.length} times: ${downs.map((f) => iso(f.at)).join(", ")}`);
}

/** The first differing line of two texts with its number, or null when they are equal. */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  const left = a.split("\n"),
    right = b.split("\n");
  let i = 0;
  while (i < left.length && i < right.length && left[i] === right[i]) i++;
  return `line ${i + 1}: ${JSON.stringify(left[i] ?? "<end>").slice(0, 200)} against ${JSON.stringify(right[i] ?? "<end>").slice(0, 200)}`;
}

const iso = (at: number) => new Date(at).toISOString();
