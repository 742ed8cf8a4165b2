// Admin API request bodies for status pages (CONTRACT "Status pages") → a page to add or edit, or a 400 outcome.
import type { Millis, StatusGroup, StatusPage } from "../../engine/model.ts";
import { LIMITS } from "../../engine/model.ts";
import { isUuid } from "../../engine/ids.ts";
import type { Outcome } from "../../engine/outcome.ts";
import { invalid, ok } from "../../engine/outcome.ts";
import type { JsonObject } from "../body.ts";

/** A slug: lower-case letters, digits and "-", 1 to 64, starting with a letter or digit (it is a URL's last part). */
const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const SLUG_RULE = "must be 1-64 lower-case letters, digits or '-', starting with a letter or digit";
export const MAX_STATUS_CHECKS = 100;
/** The longest description of a page, in characters. */
export const MAX_STATUS_DESCRIPTION = 2_000;
/** The longest logo address, in characters. */
export const MAX_LOGO_URL = 500;
/** The most groups (headings) on a page. */
export const MAX_STATUS_GROUPS = 20;

export function isStatusSlug(text: string): boolean {
  return SLUG.test(text);
}

/**
 * The page a body describes: `slug`, `title`, `checks` (uuids, no repeats) and, when given, `description`
 * (text; "" takes it away on an edit, absent keeps it), `logo` (likewise) and `groups` ([] takes them away,
 * absent keeps them).
 * Which project owns the checks is the shard's to judge.
 */
export function statusPageInputOf(body: JsonObject, at: Millis): Outcome<StatusPage> {
  const { slug, title, checks, description } = body;
  if (typeof slug !== "string") return invalid("slug", "is required and must be a string");
  if (!isStatusSlug(slug)) return invalid("slug", SLUG_RULE);
  if (typeof title !== "string" || title.trim() === "") return invalid("title", "is required and must be a non-empty string");
  if ([...title].length > LIMITS.nameMaxChars) return invalid("title", `is too long (at most ${LIMITS.nameMaxChars} characters)`);
  if (description !== undefined && typeof description !== "string") return invalid("description", "must be a string");
  if (description !== undefined && [...description].length > MAX_STATUS_DESCRIPTION)
    return invalid("description", `is too long (at most ${MAX_STATUS_DESCRIPTION} characters)`);
  if (!Array.isArray(checks) || checks.length === 0) return invalid("checks", "is required and must be a non-empty list of check uuids");
  if (checks.length > MAX_STATUS_CHECKS) return invalid("checks", `has more than ${MAX_STATUS_CHECKS} checks`);
  const uuids: string[] = [];
  for (const uuid of checks) {
    if (typeof uuid !== "string" || !isUuid(uuid)) return invalid("checks", "must hold check uuids only");
    if (uuids.includes(uuid)) return invalid("checks", `names ${uuid} twice`);
    uuids.push(uuid);
  }
  const grouped = groupsOf(body.groups, uuids);
  if (!grouped.ok) return grouped;
  const logo = logoOf(body.logo);
  if (!logo.ok) return logo;
  const text = description?.replace(/\r\n?/g, "\n").trim();
  return ok({
    slug,
    title: title.trim(),
    ...(text === undefined ? {} : { description: text }),
    checks: uuids,
    ...(grouped.value === undefined ? {} : { groups: grouped.value }),
    ...(logo.value === undefined ? {} : { logo: logo.value }),
    createdAt: at,
  });
}

/**
 * `logo` as given: absent (an edit keeps the page's), "" (none), or an https address without user name or
 * password, at most MAX_LOGO_URL characters, as the URL parser writes it. hcd never fetches it: the viewer's
 * browser does, allowed by the page's CSP for that origin alone (status-html.ts).
 */
function logoOf(given: unknown): Outcome<string | undefined> {
  if (given === undefined || given === "") return ok(given);
  if (typeof given !== "string") return invalid("logo", "must be a string: an https address of an image");
  if (given.length > MAX_LOGO_URL) return invalid("logo", `is too long (at most ${MAX_LOGO_URL} characters)`);
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return invalid("logo", "must be an https address of an image (like https://example.com/logo.png)");
  }
  if (url.protocol !== "https:") return invalid("logo", "must be an https address (https://...): the page is shown over https");
  if (url.username !== "" || url.password !== "") return invalid("logo", "must not hold a user name or password");
  if (url.hostname === "") return invalid("logo", "must name a host");
  return ok(url.href);
}

/**
 * `groups` as given: absent (undefined: an edit keeps the page's), or a list of at most MAX_STATUS_GROUPS
 * `{"name", "checks"}`, each name given once, each check one of the page's `checks` and in one group at most.
 */
function groupsOf(given: unknown, pageChecks: readonly string[]): Outcome<StatusGroup[] | undefined> {
  if (given === undefined) return ok(undefined);
  if (!Array.isArray(given)) return invalid("groups", "must be a list of {name, checks}");
  if (given.length > MAX_STATUS_GROUPS) return invalid("groups", `has more than ${MAX_STATUS_GROUPS} groups`);
  const groups: StatusGroup[] = [];
  const placed = new Set<string>();
  for (const group of given) {
    if (typeof group !== "object" || group === null || Array.isArray(group)) return invalid("groups", "must be a list of {name, checks}");
    const { name, checks, ...rest } = group as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) return invalid("groups", `has an unknown field ${JSON.stringify(extra)} (a group has name and checks)`);
    if (typeof name !== "string" || name.trim() === "") return invalid("groups", "has a group without a name");
    if ([...name.trim()].length > LIMITS.nameMaxChars) return invalid("groups", `has a name longer than ${LIMITS.nameMaxChars} characters`);
    if (groups.some((g) => g.name === name.trim())) return invalid("groups", `names the group ${JSON.stringify(name.trim())} twice`);
    if (!Array.isArray(checks) || checks.length === 0)
      return invalid("groups", `group ${JSON.stringify(name.trim())} needs a non-empty list of check uuids`);
    for (const uuid of checks) {
      if (typeof uuid !== "string" || !pageChecks.includes(uuid))
        return invalid(
          "groups",
          `group ${JSON.stringify(name.trim())} names ${JSON.stringify(uuid)}, which is not one of the page's checks`,
        );
      if (placed.has(uuid)) return invalid("groups", `puts ${uuid} in two groups (or twice in one)`);
      placed.add(uuid);
    }
    groups.push({ name: name.trim(), checks: [...(checks as string[])] });
  }
  return ok(groups);
}
