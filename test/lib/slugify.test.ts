// slugify against Django's slugify (django.utils.text): each expected slug below was computed once by
// Django's own steps in Python (unicodedata NFKD, ASCII only, lower, re's \w, \s and strip("-_")).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { slugify } from "../../lib/slugify.ts";

const rows: [text: string, slug: string][] = [
  ["Backups", "backups"],
  ["Café Ünïcode — nightly", "cafe-unicode-nightly"],
  ["crème brûlée", "creme-brulee"],
  ["Ça va? 100%", "ca-va-100"],
  ["日本語 — ✓", ""],
  ["-_-", ""],
  ["", ""],
  ["  Hello,  World!  ", "hello-world"],
  ["__db_backup__", "db_backup"],
  ["snake_case-and-kebab", "snake_case-and-kebab"],
  ["a - b -- c", "a-b-c"],
  ["tab\tnew\nline", "tab-new-line"],
  ["x\x1cy", "x-y"], // Python's \s includes the ASCII separators \x1c-\x1f
  ["a\u00a0b", "a-b"], // NFKD makes a no-break space a space
  ["a\u2003b", "a-b"],
  ["ﬁle ½ ① Ⅻ", "file-12-1-xii"], // compatibility forms: ligature, fraction, circled digit, roman numeral
  ["Straße", "strae"], // ß has no decomposition: dropped, not transliterated
  ["Łódź", "odz"],
  ["ØRE", "re"],
  ["UPPER lower 123", "upper-lower-123"],
];

for (const [text, slug] of rows) {
  test(`slugify(${JSON.stringify(text)}) is ${JSON.stringify(slug)}`, () => assert.is(slugify(text), slug));
}

test.run();
