// Ping addresses of inbound mail (fact sheet notify §8): `<uuid>@domain` and `<ping-key>+<slug>@domain`.
import { isSlug, isSlugSegment, isUuidAnyCase } from "../engine/ids.ts";

/** What a recipient address names, or why it names nothing. */
export type Recipient =
  | { readonly kind: "uuid"; readonly uuid: string } // lower-case canonical uuid
  | { readonly kind: "slug"; readonly pingKey: string; readonly slug: string }
  | { readonly kind: "wrong_domain" }
  | { readonly kind: "invalid_mailbox" };

// Ping keys as the /ping/<ping_key>/<slug> route takes them; slugs lower case only (reference RE_PING_KEY_SLUG).
const MAX_PART_CHARS = 100;

/** Returns what `address` names when mail for `domain` arrives; the domain compares case-insensitively. */
export function parseRecipient(address: string, domain: string): Recipient {
  const at = address.indexOf("@"); // split at the first "@", as the reference does
  if (at < 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return { kind: "wrong_domain" };
  const mailbox = address.slice(0, at);
  // any case is accepted and normalised, as the reference's lookup does; the lookup decides whether it exists
  if (isUuidAnyCase(mailbox)) return { kind: "uuid", uuid: mailbox.toLowerCase() };
  const plus = mailbox.indexOf("+");
  const pingKey = mailbox.slice(0, plus),
    slug = mailbox.slice(plus + 1);
  const fits = (part: string) => part.length >= 1 && part.length <= MAX_PART_CHARS;
  if (plus < 0 || !fits(pingKey) || !fits(slug) || !isSlugSegment(pingKey) || !isSlug(slug)) return { kind: "invalid_mailbox" };
  return { kind: "slug", pingKey, slug };
}

/** Returns the User-Agent the reference records for a ping by mail, cut to `maxChars` characters. */
export function emailUserAgent(mailFrom: string, maxChars: number): string {
  return `Email from ${mailFrom}`.slice(0, maxChars);
}
