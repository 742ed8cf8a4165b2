// "Ping now" on a check's page sends a success: a check whose body filter is on (filter_http_body) would
// count an empty body as a failure or ignore it, so the ping carries one of the check's success keywords.
import type { Check } from "../../engine/model.ts";
import { matchKeywords } from "../../engine/classify.ts";

/** The body "Ping now" sends and the notice naming what it did; or why no success can be sent from here. */
export type PingNowPlan =
  | { readonly ok: true; readonly body: Uint8Array | null; readonly done: "ping" | "ping-keyword" }
  | { readonly ok: false; readonly error: string };

export function pingNowPlan(check: Check): PingNowPlan {
  if (!check.filterHttpBody) return { ok: true, body: null, done: "ping" };
  // a keyword that also matches a failure keyword would be read as a failure (failure keywords come first)
  const keyword = check.successKw
    .split(",")
    .map((k) => k.trim())
    .find((k) => k !== "" && !matchKeywords(k, check.failureKw));
  if (keyword === undefined) {
    return {
      ok: false,
      error:
        "This check reads its pings' bodies for keywords and has no success keyword, so a ping from here cannot count as a success: add one under \"Success keywords\" in the check's Edit form (Filtering rules), or ping from the job itself.",
    };
  }
  return { ok: true, body: new TextEncoder().encode(keyword), done: "ping-keyword" };
}
