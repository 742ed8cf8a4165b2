// The pictures of the documentation: the README shows the dashboard, every picture a page shows is a
// tracked file (test/docs-links.test.ts checks it for every page), and every screenshot that
// `npm run screenshots` makes in docs/screenshots/ is shown on some page, and no two are the same picture.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
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

test("no two screenshots are the same picture (a page that sent the script elsewhere would be)", () => {
  const dir = join(ROOT, "docs", "screenshots");
  const byContent = new Map<string, string[]>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".png"))) {
    const digest = createHash("sha256")
      .update(readFileSync(join(dir, name)))
      .digest("hex");
    byContent.set(digest, [...(byContent.get(digest) ?? []), name]);
  }
  assert.equal(
    [...byContent.values()].filter((names) => names.length > 1),
    [],
  );
});

test.run();
