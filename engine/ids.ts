// The shapes of the names a check is reached by, as the reference's URL converters and forms take them:
// one home for the pings, the API and inbound mail.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UUID_ANY_CASE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[a-z0-9_-]*$/;
const SLUG_SEGMENT = /^[-a-zA-Z0-9_]+$/;

/** Returns true for a lower-case canonical uuid (Django's uuid converter: upper case matches no route). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}

/** Returns true for a uuid in any case (run ids, mail addresses: the caller lower-cases it). */
export function isUuidAnyCase(text: string): boolean {
  return UUID_ANY_CASE.test(text);
}

/** Returns true for a check's slug as the API stores it: lower-case letters, digits, "-" and "_" ("" = none). */
export function isSlug(text: string): boolean {
  return SLUG.test(text);
}

/**
 * Returns true for a path segment Django's slug converter takes: letters of either case, digits, "-" and
 * "_" (ping keys, and slugs in ping URLs, where an upper-case slug is then refused as a bad URL).
 */
export function isSlugSegment(text: string): boolean {
  return SLUG_SEGMENT.test(text);
}

const PUSH_TOKEN = /^[A-Za-z0-9_-]{10,128}$/;

/**
 * Returns true for an Uptime Kuma push token as a check may carry one: 10 to 128 letters, digits, "-" or "_"
 * (Kuma makes 32 letters and digits, 10 before its 1.x push tokens grew; a path segment as it is).
 */
export function isPushToken(text: string): boolean {
  return PUSH_TOKEN.test(text);
}
