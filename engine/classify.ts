// What a ping means (fact sheet §2 steps 6-8, §3, §7): exit status, POST-only, keywords, manual resume.
import type { Check, PingKind, PingSignal } from "./model.ts";

/** How much of an HTTP ping's body filter_http_body searches (spec: the first 10 kB), whatever ping_body_limit stores. */
export const KEYWORD_BODY_BYTES = 10_000;

/** A ping as the route saw it; `body` is searched up to KEYWORD_BODY_BYTES. */
export type HttpPing = {
  readonly signal: PingSignal;
  readonly exitStatus: number | null;
  readonly method: string;
  readonly body: Uint8Array | string;
};

/** Returns the kind an HTTP ping is recorded and applied as. */
export function classify(check: Check, ping: HttpPing): PingKind {
  let kind: PingKind = ping.signal;
  if (ping.exitStatus !== null) kind = ping.exitStatus > 0 ? "fail" : "success";
  if (check.methods === "POST" && ping.method !== "POST") kind = "ign";
  // keywords replace whatever the URL meant (/fail, /start, /log, exit statuses)
  if (kind !== "ign" && check.filterHttpBody) kind = kindFromKeywords(check, bodyText(ping.body));
  return ignoredWhilePaused(check, kind);
}

/** Returns the kind an email ping is recorded and applied as; without subject/body filtering it is a success. */
export function classifyEmail(check: Check, mail: { readonly subject: string; readonly text: string }): PingKind {
  if (!check.filterSubject && !check.filterBody) return ignoredWhilePaused(check, "success");
  const chunks = [...(check.filterSubject ? [mail.subject] : []), ...(check.filterBody ? [mail.text] : [])];
  return ignoredWhilePaused(check, kindFromKeywords(check, chunks.join("\n")));
}

/** Returns true when any comma-separated, trimmed, non-empty keyword occurs in `text` (case-sensitive). */
export function matchKeywords(text: string, keywordsCsv: string): boolean {
  return keywordsCsv.split(",").some((item) => {
    const keyword = item.trim();
    return keyword !== "" && text.includes(keyword);
  });
}

/** Keyword precedence: failure, success, start; no match → fail with filter_default_fail, else ign. */
function kindFromKeywords(check: Check, text: string): PingKind {
  if (matchKeywords(text, check.failureKw)) return "fail";
  if (matchKeywords(text, check.successKw)) return "success";
  if (matchKeywords(text, check.startKw)) return "start";
  return check.filterDefaultFail ? "fail" : "ign";
}

/** Paused + manual_resume turns every ping into ign, after keywords (reference Check.ping). */
function ignoredWhilePaused(check: Check, kind: PingKind): PingKind {
  return check.status === "paused" && check.manualResume ? "ign" : kind;
}

// Invalid UTF-8 decodes with U+FFFD instead of failing: the reference answers 500 there (a bug we don't copy).
const lenientUtf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true }); // keeps a BOM, as Python does

function bodyText(body: Uint8Array | string): string {
  return typeof body === "string" ? body : lenientUtf8.decode(body.subarray(0, KEYWORD_BODY_BYTES));
}
