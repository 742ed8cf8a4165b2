// Signed badge URL tokens, shared by the badges list (/api/v3/badges/) and the badge files (/badge/...).
// The key is the server's badge secret (DATA_DIR/badge-secret), which never appears in a URL: the project's
// badge key is in every badge URL, so a signature keyed by it would let anyone who sees one published
// badge mint the URL of any other tag.
import { createHmac, timingSafeEqual } from "node:crypto";

/** Returns the badge token of a tag: the first 8 URL-safe base64 characters of HMAC-SHA256(secret, "<badge key>/<tag>"). */
export function badgeSignature(secret: string, badgeKey: string, tag: string): string {
  // a badge key is a slug (no "/"), so "<key>/<tag>" names one (project, tag) pair only
  return createHmac("sha256", secret).update(`${badgeKey}/${tag}`).digest("base64url").slice(0, 8);
}

/** Returns how many states a badge token asks for (2 with the "-2" suffix, else 3), or null when its signature is wrong. */
export function badgeStatesOf(secret: string, badgeKey: string, tag: string, token: string): 2 | 3 | null {
  const twoState = token.length === 10 && token.endsWith("-2");
  const given = Buffer.from(twoState ? token.slice(0, 8) : token);
  const expected = Buffer.from(badgeSignature(secret, badgeKey, tag));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return twoState ? 2 : 3;
}
