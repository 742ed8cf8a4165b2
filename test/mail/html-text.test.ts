import { test } from "uvu";
import * as assert from "uvu/assert";
import { htmlToText } from "../../mail/html-text.ts";

const rows: [name: string, html: string, want: string][] = [
  ["tags add no spaces", "<b>a</b>b", "ab"],
  ["whitespace runs collapse to one space and the ends are trimmed", "  <p>Backup\n\n\t done </p>  ", "Backup done"],
  ["script and style content is dropped", "<style>p{}</style>ok<script>var FAIL = 1</script>!", "ok!"],
  ["comments are dropped", "a<!-- FAIL -->b", "ab"],
  ["entities are decoded", "&lt;ok&gt; &amp; &quot;x&quot; &#65;&#x42;", "<ok> & \"x\" AB"],
  ["a non-breaking space counts as whitespace", "a&nbsp;&nbsp;b\u00a0c", "a b c"],
  ["an unknown entity stays as written", "&bogus; &constructor;", "&bogus; &constructor;"],
  ["attributes are not text", '<a href="http://x/FAIL" title="FAIL">link</a>', "link"],
  ["doctype and a whole document", "<!DOCTYPE html><html><head><title>T</title></head><body>Hi</body></html>", "THi"],
  ["a lone < is text", "1 < 2", "1 < 2"],
];
for (const [name, html, want] of rows) {
  test(name, () => assert.is(htmlToText(html), want));
}

test.run();
