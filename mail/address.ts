// Ping addresses of inbound mail (fact sheet notify §8): `<uuid>@domain` and `<ping-key>+<slug>@domain`.

/** What a recipient address names, or why it names nothing. */
export type Recipient =
  | { readonly kind: "uuid"; readonly uuid: string } // lower-case canonical uuid
  | { readonly kind: "slug"; readonly pingKey: string; readonly slug: string }
  | { readonly kind: "wrong_domain" }
  | { readonly kind: "invalid_mailbox" };

// Any case is accepted and normalised, as the reference's lookup does; the lookup decides whether it exists.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Ping keys as the /ping/<ping_key>/<slug> route takes them; slugs lower case only (reference RE_PING_KEY_SLUG).
const KEY_AND_SLUG = /^([A-Za-z0-9_-]{1,100})\+([a-z0-9_-]{1,100})$/;

/** Returns what `address` names when mail for `domain` arrives; the domain compares case-insensitively. */
export function parseRecipient(address: string, domain: string): Recipient {
  const at = address.indexOf("@"); // split at the first "@", as the reference does
  if (at < 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return { kind: "wrong_domain" };
  const mailbox = address.slice(0, at);
  if (UUID.test(mailbox)) return { kind: "uuid", uuid: mailbox.toLowerCase() };
  const keyAndSlug = KEY_AND_SLUG.exec(mailbox);
  if (keyAndSlug === null) return { kind: "invalid_mailbox" };
  return { kind: "slug", pingKey: keyAndSlug[1], slug: keyAndSlug[2] };
}

/** Returns the User-Agent the reference records for a ping by mail, cut to `maxChars` characters. */
export function emailUserAgent(mailFrom: string, maxChars: number): string {
  return `Email from ${mailFrom}`.slice(0, maxChars);
}
