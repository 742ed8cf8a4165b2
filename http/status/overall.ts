// A status page's overall line ("All systems operational", "Partial outage: 1 of 3 checks down"): one rule
// for the HTML page and the .json document. Only "down" counts as an outage and "grace" as late; new and
// paused checks signal no failure (not pinged yet, or not watched on purpose) and count as operational.

export type OverallState = "operational" | "late" | "partial_outage" | "major_outage";
export type Overall = { readonly state: OverallState; readonly down: number; readonly late: number; readonly total: number };

/** The page's overall state from its checks' status words (the API's: new, up, grace, down, paused). */
export function overallOf(statuses: readonly string[]): Overall {
  const down = statuses.filter((s) => s === "down").length;
  const late = statuses.filter((s) => s === "grace").length;
  const total = statuses.length;
  const state: OverallState = down > 0 ? (down === total ? "major_outage" : "partial_outage") : late > 0 ? "late" : "operational";
  return { state, down, late, total };
}

const checksWord = (n: number) => `${n} check${n === 1 ? "" : "s"}`;

/** The line the HTML page shows at its top. */
export function overallText(overall: Overall): string {
  const { state, down, late, total } = overall;
  switch (state) {
    case "operational":
      return "All systems operational";
    case "late":
      return `Delayed: ${late} of ${checksWord(total)} late (not down yet)`;
    case "partial_outage":
      return `Partial outage: ${down} of ${checksWord(total)} down`;
    case "major_outage":
      return total === 1 ? "Major outage: the check is down" : `Major outage: all ${checksWord(total)} down`;
  }
}
