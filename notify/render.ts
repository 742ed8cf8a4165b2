// What to send for one outbox entry: the reference's payloads (fact sheet §4–§7), rendered from the
// check, flip and last ping as they were at the flip (Project decision §2). Pure: no I/O, no clock.
import type { NoticeCheck } from "../engine/changes.ts";
import { isWholeCheck } from "../engine/changes.ts";
import type { ChannelKind, Check, Millis, NtfySpec, WebhookSpec } from "../engine/model.ts";
import { tagsOf } from "../engine/model.ts";
import type { JsonValue } from "./py-json.ts";
import { pyJson } from "./py-json.ts";
import { formatAgo, formatDowntime, formatPeriod, rfc2822, shortDate } from "./wording.ts";
import { isoSeconds } from "../lib/iso-dates.ts";
import { escapeHtml } from "../lib/html.ts";
import { presentCheck } from "../host/check-json.ts";
import { renderService } from "./kinds/service.ts";
import { serviceMessageOf } from "./kinds/message.ts";
import { DEFAULT_SERVICE_SETTINGS } from "./kinds/settings.ts";
import type { Delivery, EmailMessage, HttpMethod, HttpRequest } from "./delivery.ts";
import { HTTP_METHODS } from "./delivery.ts";
import type { Facts, RenderEntry, RenderOptions } from "./facts.ts";
import { cloakedUrl, cutBody, factsOf, isStillDown, isWord, pingKindLabel, statusLine } from "./facts.ts";
export type { EntryExtras, RenderEntry, RenderOptions } from "./facts.ts";
export { cloakedUrl } from "./facts.ts";

/** Returns what to send for the entry, or null when its channel does nothing for this flip (a no-op). */
export function render(entry: RenderEntry, opts: RenderOptions): Delivery | null {
  const direction = entry.flip.to;
  if (direction !== "up" && direction !== "down") return null; // fact sheet §1: only up and down notify
  // imported without its settings (a stub): refused for good, so the outbox shows what it missed
  if (entry.channel.needsSettings === true)
    throw new Error(`the ${entry.channel.kind} integration "${entry.channel.name}" needs its settings: it was imported without them`);
  const facts = factsOf(entry, direction, opts);
  const value = entry.channel.value;
  switch (value.kind) {
    case "webhook":
      return value.json ? renderJsonWebhook(value.spec, facts) : renderWebhook(value.spec, facts);
    case "slack":
      return renderSlackalike(value.url, facts, "slack");
    case "discord":
      return renderSlackalike(discordUrl(value.url), facts, "discord");
    case "ntfy":
      return renderNtfy(value.spec, facts);
    case "email":
      return renderEmail(value.address, facts);
    default:
      return renderService(value.kind, value.fields, serviceMessageOf(facts, entry.id), opts.services ?? DEFAULT_SERVICE_SETTINGS);
  }
}

/**
 * Returns true when a channel's HTTP answer means it will never work again, so retrying is pointless:
 * Slack 404 or 400 "invalid_token", Discord 404 (fact sheet §5); webhooks and ntfy never.
 */
export function isPermanentResponse(kind: ChannelKind, status: number, body: string): boolean {
  if (kind === "slack") return status === 404 || (status === 400 && body === "invalid_token");
  if (kind === "discord") return status === 404;
  return false;
}

// ---- webhook (fact sheet §4) ---------------------------------------------------------------------

const URL_ENCODED = new Set(["$NOW", "$NAME_JSON", "$NAME", "$TAGS", "$JSON"]); // and every $TAGn

/** The check's v3 read-write representation at `at` (the API's shape), for $JSON and JSON webhooks. */
function checkJson(check: NoticeCheck | Check, at: Millis, siteRoot: string): JsonValue {
  // the engine gives these channels the whole check (rendersCheckJson); a lean one here is a bug, not a message to send
  if (!isWholeCheck(check)) throw new Error(`outbox entry of check ${check.uuid} lacks the whole check its channel's JSON needs`);
  return presentCheck(check, { at, siteRoot, readonly: false }) as JsonValue;
}

type Where = "url" | "headers" | "body";

/**
 * The placeholders in the reference's matching order, each with its value (fact sheet §4), for `templates`:
 * $JSON only when one of them has it (no other key starts with "$J", so leaving it out changes nothing else).
 */
function placeholders(facts: Facts, where: Where, templates: readonly string[]): [key: string, value: string][] {
  const { check, ping } = facts;
  const list: [string, string][] = [
    ["$CODE", check.uuid],
    ["$STATUS", facts.direction],
    ["$NOW", isoSeconds(facts.at)],
    ["$NAME_JSON", pyJson(check.name)],
    ["$NAME", check.name],
    ["$SLUG", check.slug],
    ["$TAGS", check.tags],
  ];
  if (templates.some((template) => template.includes("$JSON")))
    list.push(["$JSON", pyJson(checkJson(check, facts.at, facts.opts.siteRoot))]);
  if (where === "body") list.push(["$BODY_JSON", pyJson(facts.body ?? "")], ["$BODY", facts.body ?? ""]);
  list.push(["$EXITSTATUS", String(ping?.exitStatus ?? -1)]);
  list.push(["$REMINDER", facts.reminder === null ? "0" : "1"]); // hcd's own: 1 for a "still down" reminder
  tagsOf(check.tags).forEach((tag, i) => list.push([`$TAG${i + 1}`, tag]));
  if (where !== "url") return list;
  return list.map(([key, value]) => [key, URL_ENCODED.has(key) || /^\$TAG\d/.test(key) ? pyQuote(value) : value]);
}

/** Replaces placeholders in one pass: text produced by a substitution is never scanned again. */
export function substitute(template: string, values: readonly [key: string, value: string][]): string {
  const [head, ...pieces] = template.split("$");
  return (
    head +
    pieces
      .map((rest) => {
        const piece = `$${rest}`;
        const hit = values.find(([key]) => piece.startsWith(key));
        return hit === undefined ? piece : hit[1] + piece.slice(hit[0].length);
      })
      .join("")
  );
}

/** Percent-encodes like Python's quote(): UTF-8, keeps A–Z a–z 0–9 _ . - ~ and /. */
export function pyQuote(text: string): string {
  return encodeURIComponent(wellFormed(text))
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll("%2F", "/");
}

// encodeURIComponent throws on a lone surrogate; Python's quote would not, so write U+FFFD instead
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

// Header values: every character outside latin-1 becomes a decimal XML character reference
function latin1Header(value: string): string {
  return Array.from(value, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code > 0xff ? `&#${code};` : c;
  }).join("");
}

function methodOf(raw: string): HttpMethod {
  const upper = raw.toUpperCase();
  return HTTP_METHODS.find((m) => m === upper) ?? "GET";
}

function renderWebhook(spec: WebhookSpec, facts: Facts): HttpRequest | null {
  const up = facts.direction === "up";
  const urlTemplate = up ? spec.url_up : spec.url_down;
  if (urlTemplate === "") return null; // fact sheet §4: an empty URL makes that direction a no-op
  const method = methodOf(up ? spec.method_up : spec.method_down);
  const bodyTemplate = up ? spec.body_up : spec.body_down;
  const headerTemplates = Object.entries(up ? spec.headers_up : spec.headers_down);
  const headerValues = placeholders(
    facts,
    "headers",
    headerTemplates.map(([, value]) => value),
  );
  const headers = Object.fromEntries(headerTemplates.map(([name, value]) => [name, latin1Header(substitute(value, headerValues))]));
  const withBody = method !== "GET" && bodyTemplate !== "";
  return {
    kind: "http",
    method,
    url: substitute(urlTemplate, placeholders(facts, "url", [urlTemplate])),
    headers,
    body: withBody ? substitute(bodyTemplate, placeholders(facts, "body", [bodyTemplate])) : null,
  };
}

// Project (CONTRACT channel values): a plain URL = POST the check's JSON on every up and down change
function renderJsonWebhook(spec: WebhookSpec, facts: Facts): HttpRequest | null {
  const url = (facts.direction === "up" ? spec.url_up : spec.url_down) || spec.url_down || spec.url_up;
  if (url === "") return null;
  return {
    kind: "http",
    method: "POST",
    url,
    headers: { "Content-Type": "application/json" },
    body: pyJson(checkJson(facts.check, facts.at, facts.opts.siteRoot)),
  };
}

// ---- Slack and Discord (fact sheet §5) -----------------------------------------------------------

function discordUrl(url: string): string {
  let target = url.replace(/^(https?:\/\/)discordapp\.com(?=[/:]|$)/i, "$1discord.com").replace(/\/+$/, "");
  if (!target.endsWith("/slack")) target += "/slack";
  return target;
}

function renderSlackalike(url: string, facts: Facts, flavour: "slack" | "discord"): HttpRequest {
  const { check, ping, name, direction } = facts;
  const fields: JsonValue[] = [];
  const add = (title: string, value: string, short = true) => fields.push(short ? { title, value, short } : { title, value });
  const fixAsterisks = (s: string) => (flavour === "slack" ? s.replaceAll("*", "\u034f*") : s.replaceAll("*", "\\*"));
  if (check.desc) add("Description", check.desc, false);
  if (facts.projectName) add("Project", facts.projectName);
  const tags = tagsOf(check.tags);
  if (tags.length > 0) add("Tags", tags.map((t) => `\`${t}\``).join(" "));
  if (check.kind === "simple") add("Period", formatPeriod(check.timeoutMs));
  else {
    add("Schedule", fixAsterisks(check.schedule));
    add("Time Zone", check.tz);
  }
  add("Total Pings", String(ping?.n ?? 0));
  add("Last Ping", ping === null ? "Never" : `${pingKindLabel(ping, "Start")}, ${formatAgo(ping.at, facts.at)}`);
  const body = cutBody(facts.body, 1000);
  if (body !== null && !body.includes("```")) add("Last Ping Body", `\`\`\`\n${body}\n\`\`\``, false);
  const payload: JsonValue = {
    username: facts.opts.siteName,
    icon_url: `${facts.opts.siteRoot}/static/img/logo.png`,
    attachments: [
      {
        color: direction === "up" ? "good" : "danger",
        fallback: `The check "${name}" ${isWord(facts)}.`,
        mrkdwn_in: ["fields"],
        title: `\u201c${name}\u201d ${isWord(facts)}.`,
        title_link: cloakedUrl(check, facts.opts.siteRoot),
        text: statusLine(facts),
        fields,
      },
    ],
  };
  return { kind: "http", method: "POST", url, headers: { "Content-Type": "application/json" }, body: pyJson(payload) };
}

// ---- ntfy (fact sheet §6) ------------------------------------------------------------------------

/** Returns the server base URL and topic; a topic URL ("https://ntfy.sh/alerts") is split. */
export function ntfyTarget(spec: NtfySpec): { server: string; topic: string } {
  if (spec.topic !== "") return { server: spec.url.replace(/\/+$/, ""), topic: spec.topic };
  const url = new URL(spec.url);
  const parts = url.pathname.split("/").filter((p) => p !== "");
  const topic = parts.pop() ?? "";
  return { server: `${url.origin}${parts.length > 0 ? `/${parts.join("/")}` : ""}`, topic };
}

function renderNtfy(spec: NtfySpec, facts: Facts): HttpRequest | null {
  const priority = facts.direction === "up" ? spec.priority_up : spec.priority_down;
  if (priority === 0) return null; // fact sheet §6: priority 0 makes that direction a no-op
  const { check, ping } = facts;
  const lines: string[] = [];
  const first = statusLine(facts);
  if (first !== null) lines.push(first, "");
  if (facts.projectName) lines.push(`**Project:** ${facts.projectName}`);
  const tags = tagsOf(check.tags);
  if (tags.length > 0) lines.push(`**Tags:** ${tags.join(", ")}`);
  if (check.kind === "simple") lines.push(`**Period:** ${formatPeriod(check.timeoutMs)}`);
  else lines.push(`**Schedule:** \`${check.schedule}\``, `**Time Zone:** ${check.tz}`);
  lines.push(`**Total Pings:** ${ping?.n ?? 0}`);
  lines.push(ping === null ? "**Last Ping:** Never" : `**Last Ping:** ${pingKindLabel(ping, "Start")}, ${formatAgo(ping.at, facts.at)}`);
  const { server, topic } = ntfyTarget(spec);
  const payload: JsonValue = {
    topic,
    priority,
    title: `${facts.name} ${isWord(facts)}`,
    message: lines.map(escapeHtml).join("\n"),
    markdown: true,
    tags: [facts.direction === "up" ? "green_circle" : "red_circle"],
    actions: [{ action: "view", label: `View on ${facts.opts.siteName}`, url: cloakedUrl(check, facts.opts.siteRoot) }],
  };
  const auth: Record<string, string> = spec.token === undefined || spec.token === "" ? {} : { Authorization: `Bearer ${spec.token}` };
  return { kind: "http", method: "POST", url: server, headers: { "Content-Type": "application/json", ...auth }, body: pyJson(payload) };
}

// ---- email (fact sheet §7) -----------------------------------------------------------------------

const EMAIL_BODY_MAX = 10_000;

/** Wraps each line at `width` columns on spaces (Django's wordwrap: long words are not broken). */
function wordWrap(text: string, width: number): string {
  return text
    .split("\n")
    .map((line) => {
      const out: string[] = [];
      let rest = line;
      while (rest.length > width) {
        const cut = rest.lastIndexOf(" ", width);
        if (cut <= 0) break;
        out.push(rest.slice(0, cut));
        rest = rest.slice(cut + 1);
      }
      out.push(rest);
      return out.join("\n");
    })
    .join("\n");
}

function renderEmail(address: string, facts: Facts): EmailMessage {
  const { check, ping, name, direction, opts } = facts;
  const link = cloakedUrl(check, opts.siteRoot);
  const tags = tagsOf(check.tags);
  const details: [label: string, text: string][] = [];
  if (facts.projectName) details.push(["Project", facts.projectName]);
  if (tags.length > 0) details.push(["Tags", check.tags]);
  if (check.kind === "simple") details.push(["Period", formatPeriod(check.timeoutMs)]);
  else details.push(["Schedule", check.schedule], ["Time zone", check.tz]);
  details.push(["Total pings", `${check.nPings} (since ${shortDate(check.createdAt)})`]);
  if (ping !== null) {
    details.push(["Last ping", `${formatAgo(ping.at, facts.at)}${ping.remoteAddr ? `, from ${ping.remoteAddr}` : ""}`]);
    details.push(["Last ping type", pingKindLabel(ping, "Started")]);
  }
  details.push([`Status changed to ${direction} at`, rfc2822(facts.at)]);
  const body = facts.body === null ? null : facts.body.slice(-EMAIL_BODY_MAX);
  const bodyTooLong = facts.body !== null && facts.body.length > EMAIL_BODY_MAX;
  const bodyNote = `Showing the last ${EMAIL_BODY_MAX} bytes of ${facts.bodyBytes} bytes total.`;
  const status = statusLine(facts);

  const still = isStillDown(facts);
  const text: string[] = [still ? `The check "${name}" is still ${direction}.` : `The check "${name}" has gone ${direction}.`];
  if (status !== null) text.push(status);
  text.push("", `View on ${opts.siteName}:`, link);
  if (check.desc) text.push("", "Description:", "------------", check.desc);
  text.push("", "Details:", "--------", ...details.map(([label, value]) => `${label}: ${value}`));
  if (body !== null) {
    text.push("", "Last Ping Body:", "---------------", wordWrap(body, 80));
    if (bodyTooLong) text.push(bodyNote);
  }
  text.push("", "--", `Regards, ${opts.siteName}`);

  const e = escapeHtml;
  const headline = still
    ? `"${e(name)}" is still DOWN. ${e(status ?? "")}`
    : direction === "down"
      ? `"${e(name)}" is DOWN${facts.reason ? ` (${e(facts.reason)})` : ""}.`
      : `"${e(name)}" is UP.${facts.downtimeMs !== null ? ` The downtime lasted ${formatDowntime(facts.downtimeMs)}.` : ""}`;
  const html: string[] = [`<!DOCTYPE html>`, `<p>${headline} <a href="${e(link)}">View on ${e(opts.siteName)}&hellip;</a></p>`];
  if (check.desc) html.push(`<p><b>Description</b><br>${e(check.desc).replaceAll("\n", "<br>")}</p>`);
  html.push(
    "<table>",
    ...details.map(
      ([label, value]) => `<tr><td style="padding-right: 32px; vertical-align: top;"><b>${e(label)}</b></td><td>${e(value)}</td></tr>`,
    ),
    "</table>",
  );
  if (body !== null) {
    html.push(
      "<p><b>Last Ping Body</b></p>",
      `<pre style="font-family: monospace; line-height: 1em;">${e(body).replaceAll("\n", "<br>")}</pre>`,
    );
    if (bodyTooLong) html.push(`<p>${e(bodyNote)}</p>`);
  }
  html.push(`<p style="color: #666666">&mdash;<br>${e(opts.siteName)}</p>`);

  const prefix =
    facts.reminder !== null ? "Reminder: " : facts.escalation !== null ? "Escalated: " : facts.failedAgain !== null ? "Failed again: " : "";
  return {
    kind: "email",
    to: address,
    subject: `${prefix}${direction.toUpperCase()} | ${name}`,
    text: text.join("\n") + "\n",
    html: html.join("\n") + "\n",
  };
}
