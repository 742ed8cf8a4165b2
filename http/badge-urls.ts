// Signed badge URL tokens, shared by the badges list (/api/v3/badges/) and the badge files (/badge/...):
// how a token is made, and how a request's token is checked and read.
// The key is the server's badge secret (DATA_DIR/badge-secret), which never appears in a URL: the project's
// badge key is in every badge URL, so a signature keyed by it would let anyone who sees one published
// badge mint the URL of any other tag.
import { createHmac, timingSafeEqual } from "node:crypto";
import type { BadgeStates } from "./badges.ts";

/** Returns the badge token of a tag: the first 8 URL-safe base64 characters of HMAC-SHA256(secret, "<badge key>/<tag>"). */
export function badgeSignature(secret: string, badgeKey: string, tag: string): string {
  // a badge key is a slug (no "/"), so "<key>/<tag>" names one (project, tag) pair only
  return createHmac("sha256", secret).update(`${badgeKey}/${tag}`).digest("base64url").slice(0, 8);
}

/** Returns true when the first 8 characters of `signature` are the tag's signature (the reference compares only those). */
export function signatureMatches(secret: string, badgeKey: string, tag: string, signature: string): boolean {
  const ours = Buffer.from(badgeSignature(secret, badgeKey, tag));
  const theirs = Buffer.from(signature.slice(0, 8));
  return ours.length === theirs.length && timingSafeEqual(ours, theirs);
}

/** Returns 2 for a 10-character signature ending in "-2", else 3 (reference views.badge). */
export function statesOfSignature(signature: string): BadgeStates {
  return signature.length === 10 && signature.endsWith("-2") ? 2 : 3;
}
