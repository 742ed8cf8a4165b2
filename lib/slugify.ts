// Text into a slug as Django's slugify writes it (without allow_unicode), which the reference applies to a
// check's name under API v1 and v2: accents come off, other non-ASCII characters are dropped.

// Python's \s over ASCII text: the usual whitespace and the separators \x1c-\x1f (str.isspace is true for them)
const SPACES = "\\t\\n\\v\\f\\r\\x1c-\\x1f ";
const NOT_WORD_SPACE_OR_HYPHEN = new RegExp(`[^a-z0-9_${SPACES}-]`, "g");
const HYPHENS_AND_SPACES = new RegExp(`[${SPACES}-]+`, "g");

/**
 * Returns the slug of `text`: NFKD, non-ASCII dropped, lower case, anything but letters, digits, "_",
 * "-" and whitespace removed, each run of whitespace and hyphens made one "-", then "-" and "_" trimmed
 * from both ends. "" when nothing is left (a name in another script, or only punctuation).
 */
export function slugify(text: string): string {
  const ascii = text.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");
  const kept = ascii.toLowerCase().replace(NOT_WORD_SPACE_OR_HYPHEN, "");
  return kept.replace(HYPHENS_AND_SPACES, "-").replace(/^[-_]+|[-_]+$/g, "");
}
