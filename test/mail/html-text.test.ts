import { test } from "uvu";
import * as assert from "uvu/assert";
import { htmlToText } from "../../mail/html-text.ts";

const rows: [name: string, html: string, want: string][] = [
  ["tags add no spaces", "<b>a</b>b", "ab"],
  ["whitespace runs collapse to one space and the ends are trimmed", "  <p>Backup\n\n\t done </p>  ", "Backup done"],
  ["script and style content is dropped", "<style>p{}</style>ok<script>var FAIL = 1</script>!", "ok!"],
  ["comments are dropped", "a<!-- FAIL -->b", "ab"],
  ["entities are decoded", "&lt;ok&gt; &amp; &quot;x&quot; &#65;&#x42;", '<ok> & "x" AB'],
  ["a non-breaking space counts as whitespace", "a&nbsp;&nbsp;b\u00a0c", "a b c"],
  ["an unknown entity stays as written", "&bogus; &constructor;", "&bogus; &constructor;"],
  ["attributes are not text", '<a href="http://x/FAIL" title="FAIL">link</a>', "link"],
  ["doctype and a whole document", "<!DOCTYPE html><html><head><title>T</title></head><body>Hi</body></html>", "THi"],
  ["a lone < is text", "1 < 2", "1 < 2"],
  [
    "every HTML5 named reference is decoded, with or without its semicolon where HTML allows",
    "&hearts; &rarr; &Aacute; &frac12; &check; &copy 2026 &amp more",
    "\u2665 \u2192 \u00c1 \u00bd \u2713 \u00a9 2026 & more",
  ],
  ["numeric references past Unicode or to surrogates become U+FFFD", "&#x110000;&#xD800;", "\ufffd\ufffd"],
  ["an unclosed script drops the rest of the document", "ok<script>if (a < b) FAIL", "ok"],
  ["an unclosed tag swallows the rest as attributes", '<p>PASS</p><a href="x" <b FAIL', "PASS"],
  ["upper-case tags are tags", "<STYLE>FAIL</STYLE><P>ok</P>", "ok"],
];
for (const [name, html, want] of rows) {
  test(name, () => assert.is(htmlToText(html), want));
}

test.run();
