// The facts of notify/facts.ts as every kind of notify/kinds/ receives them (ServiceMessage), listed
// as the reference's chat messages list them. Pure.
import { createHash } from "node:crypto";
import { tagsOf } from "../../engine/model.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import type { Facts } from "../facts.ts";
import { cloakedUrl, cutBody, isStillDown, isWord, pingKindLabel, statusLine } from "../facts.ts";
import { formatAgo, formatPeriod } from "../wording.ts";
import type { ServiceMessage } from "./kind.ts";

/** The facts every service kind words its own way, as the reference's chat messages list them. */
export function serviceMessageOf(facts: Facts, entryId: string): ServiceMessage {
  const { check, ping, opts } = facts;
  const tags = tagsOf(check.tags);
  const details: [string, string][] = [];
  if (facts.projectName) details.push(["Project", facts.projectName]);
  if (tags.length > 0) details.push(["Tags", tags.join(", ")]);
  if (check.kind === "simple") details.push(["Period", formatPeriod(check.timeoutMs)]);
  else details.push(["Schedule", check.schedule], ["Time Zone", check.tz]);
  const lastPing = ping === null ? "Never" : `${pingKindLabel(ping, "Start")}, ${formatAgo(ping.at, facts.at)}`;
  details.push(["Total Pings", String(ping?.n ?? 0)], ["Last Ping", lastPing]);
  return {
    // an escalation step or a failure while down reads as a reminder does ("still DOWN"), its line says which
    direction: facts.direction,
    reminder: isStillDown(facts),
    name: facts.name,
    title: `${facts.name} ${isWord(facts)}`,
    statusLine: statusLine(facts),
    reason: facts.reminder === null && facts.escalation === null ? facts.reason : "",
    link: cloakedUrl(check, opts.siteRoot),
    detailsUrl: `${opts.siteRoot}/checks/${check.uuid}/details/`,
    incidentKey: uniqueKeyOf(check.uuid),
    idempotencyKey: createHash("sha1").update(entryId).digest("hex"),
    desc: check.desc,
    projectName: facts.projectName,
    tags,
    check: { uuid: check.uuid, name: check.name, slug: check.slug, tags: check.tags },
    at: isoSeconds(facts.at),
    details,
    totalPings: ping?.n ?? 0,
    lastPing,
    lastPingAgo: ping === null ? null : formatAgo(ping.at, facts.at),
    body: cutBody(facts.body, 1000),
    siteName: opts.siteName,
  };
}
