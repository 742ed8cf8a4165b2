// The pictures of the documentation: the README shows the dashboard, every picture a page shows is a
// tracked file (test/docs-links.test.ts checks it for every page), and every screenshot that
// `npm run screenshots` makes in docs/screenshots/ is shown on some page.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { docFiles, links, ROOT } from "./docs-files.ts";

const pictures = docFiles()
  .flatMap(links)
  .filter((link) => link.picture)
  .map((link) => ({ file: link.file, path: normalize(join(dirname(link.file), link.target)) }));

test("the README shows a screenshot of the dashboard", () => {
  assert.ok(
    pictures.some((p) => p.file === "README.md" && p.path.startsWith("docs/screenshots/")),
    "no screenshot in README.md",
  );
});

test("every screenshot in docs/screenshots/ is shown on a page", () => {
  const shown = new Set(pictures.map((p) => p.path));
  const made = readdirSync(join(ROOT, "docs", "screenshots")).filter((name) => name.endsWith(".png"));
  assert.ok(made.length >= 10, `found ${made.length} screenshots`);
  assert.equal(
    made.filter((name) => !shown.has(`docs/screenshots/${name}`)),
    [],
  );
});

test.run();
