// The reference's html2text (hc/lib/html.py, fact sheet notify §8): what keywords are searched in for an HTML body.
// htmlparser2's tokenizer is one linear pass however broken the markup (unclosed tags, comments, scripts),
// and it decodes every HTML5 named character reference (through `entities`), as the reference's parser does.
import { Parser } from "htmlparser2";

const SKIPPED = new Set(["script", "style"]); // their content is code, not text

/** Returns the text nodes of `html` without script and style content, entities decoded, whitespace collapsed. */
export function htmlToText(html: string): string {
  const texts: string[] = [];
  let skipping: string | null = null; // the script or style element whose content is being dropped
  const parser = new Parser(
    {
      onopentagname(name) {
        if (skipping === null && SKIPPED.has(name)) skipping = name;
      },
      onclosetag(name) {
        if (name === skipping) skipping = null;
      },
      ontext(text) {
        if (skipping === null) texts.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  // tags add no spaces: <b>a</b>b → ab; every whitespace run (NBSP included) becomes one space
  return texts
    .join("")
    .split(/\s+/)
    .filter((word) => word !== "")
    .join(" ");
}
