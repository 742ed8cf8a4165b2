// The published schema of the apply file: docs/hcd-apply.schema.json is exactly what `hcd schema` prints
// (regenerate it with `npm run -s build && node bin/hcd.mjs schema > docs/hcd-apply.schema.json`), it is a
// valid draft-07 schema, and docs/as-code.md shows the line that makes editors complete a file from it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { schemaText } from "../../app/as-code/file-schema.ts";
import { readApplyFile } from "../../app/as-code/read-file.ts";

const root = new URL("../../../", import.meta.url);

test("docs/hcd-apply.schema.json is the schema hcd checks files with", () => {
  const published = readFileSync(new URL("docs/hcd-apply.schema.json", root), "utf8");
  assert.ok(
    published === schemaText(),
    "docs/hcd-apply.schema.json is out of date: run `node bin/hcd.mjs schema > docs/hcd-apply.schema.json`",
  );
  const ajv = new Ajv({ strict: false, validateSchema: true });
  assert.ok(ajv.validateSchema(JSON.parse(published)), JSON.stringify(ajv.errors));
});

test("docs/as-code.md points editors at the schema and its examples are files apply takes", () => {
  const page = readFileSync(new URL("docs/as-code.md", root), "utf8");
  assert.match(page, /# yaml-language-server: \$schema=/);
  const examples = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).filter((text) => /^projects:/m.test(text));
  assert.ok(examples.length > 0, "the page has a file example");
  const env = Object.fromEntries([...page.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)].map((m) => [m[1], "https://example.com/x"]));
  for (const example of examples) readApplyFile(example, "docs/as-code.md", env); // throws FileError with the line of any problem
});

test.run();
