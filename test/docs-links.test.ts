// Every relative link of the documentation (README.md, docs/*.md, ARCHITECTURE.md, CHANGELOG.md) leads
// somewhere: its file exists and, for `#anchor`, that file has such a heading; and every picture is a
// file git tracks (a path the .gitignore hides would be missing from a fresh clone).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import type { Link } from "./docs-files.ts";
import { anchorOf, anchors, docFiles, links, ROOT, trackedFiles } from "./docs-files.ts";

const files = docFiles();
const all = files.flatMap(links);
const relative = all.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link.target));

/** The repository path a link points at ("" for a link into its own file). */
function pathOf(link: Link): string {
  const path = decodeURIComponent(link.target.split("#")[0]);
  return path === "" ? link.file : normalize(join(dirname(link.file), path));
}

const where = (link: Link) => `${link.file}:${link.line} ${link.target}`;

test("GitHub's anchors of headings", () => {
  assert.is(anchorOf("Deadlines, hcd's own downtime, and the clock"), "deadlines-hcds-own-downtime-and-the-clock");
  assert.is(anchorOf("Sign in with SSO (OpenID Connect)"), "sign-in-with-sso-openid-connect");
  assert.is(anchorOf("One process per DATA_DIR"), "one-process-per-data_dir");
  assert.is(anchorOf("Management API v3"), "management-api-v3");
  assert.is(anchorOf("`ping` and [its answers](x.md)"), "ping-and-its-answers");
});

test("the documentation is found, with its links", () => {
  for (const page of ["README.md", "docs/configuration.md", "docs/api.md", "ARCHITECTURE.md"]) assert.ok(files.includes(page), page);
  assert.ok(relative.length >= 100, `found ${relative.length} relative links`);
  assert.ok(
    relative.some((link) => link.target.includes("#")),
    "some links have anchors",
  );
});

test("every relative link leads to a file that exists", () => {
  const broken = relative.filter((link) => !existsSync(join(ROOT, pathOf(link)))).map(where);
  assert.equal(broken, []);
});

test("every #anchor is a heading of the page it names", () => {
  const offered = new Map<string, Set<string>>();
  const broken = relative
    .filter((link) => link.target.includes("#"))
    .filter((link) => {
      const path = pathOf(link);
      if (!path.endsWith(".md") || !existsSync(join(ROOT, path))) return true;
      if (!offered.has(path)) offered.set(path, anchors(path));
      return !offered.get(path)!.has(decodeURIComponent(link.target.slice(link.target.indexOf("#") + 1)));
    })
    .map(where);
  assert.equal(broken, []);
});

test("every picture is tracked", () => {
  const pictures = relative.filter((link) => link.picture);
  assert.ok(pictures.length >= 10, `found ${pictures.length} pictures`);
  const tracked = trackedFiles();
  const missing = pictures
    .filter((link) => !existsSync(join(ROOT, pathOf(link))) || (tracked !== null && !tracked.has(pathOf(link))))
    .map(where);
  assert.equal(missing, []);
});

test.run();
