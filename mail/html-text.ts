// The reference's html2text (hc/lib/html.py, fact sheet notify §8): what keywords are searched in for an HTML body.

// Named references mail bodies commonly use; others stay as written (the reference decodes all of HTML5's).
const NAMED: ReadonlyMap<string, string> = new Map(Object.entries({
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", copy: "\u00a9", reg: "\u00ae",
  trade: "\u2122", hellip: "\u2026", mdash: "\u2014", ndash: "\u2013", lsquo: "\u2018", rsquo: "\u2019",
  ldquo: "\u201c", rdquo: "\u201d", laquo: "\u00ab", raquo: "\u00bb", bull: "\u2022", middot: "\u00b7",
  euro: "\u20ac", deg: "\u00b0", times: "\u00d7",
}));

const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
const TAG = /<\/?[A-Za-z][^>]*>|<![^>]*>|<\?[^>]*>/g; // elements, doctype, processing instructions
const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/g;

/** Returns the text nodes of `html` without script and style content, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  const text = html.replace(COMMENT, "").replace(SCRIPT_OR_STYLE, "").replace(TAG, "").replace(REFERENCE, decode);
  return text.split(/\s+/).filter((word) => word !== "").join(" "); // tags add no spaces: <b>a</b>b → ab
}

function decode(whole: string, decimal?: string, hex?: string, name?: string): string {
  if (name !== undefined) return NAMED.get(name) ?? whole;
  const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? "", 16);
  const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
  return valid ? String.fromCodePoint(code) : "\ufffd";
}
