// `hcd export` and `hcd apply --url` through a cluster (one nats-server, two real hcd nodes): a rich
// project made through one node, exported through the other, applied back through the first plans no
// change; a file applied through one node makes checks with their uuids that the other node serves.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { withTwoNodes } from "./two-nodes.ts";
import { hcdIn, remote, RICH_SECRETS, richProject, SERVER_ENV } from "../ops/as-code-rig.ts";

const UUIDS = ["a0000000-0000-4000-8000-000000000001", "a0000000-0000-4000-8000-000000000002"];

test("export through one node, apply through the other: no change; a file's checks made through one node ping through the other", () =>
  withTwoNodes("export and apply through a cluster", SERVER_ENV, async (a, b) => {
    const dir = tempDir();
    try {
      await richProject(a);
      const exported = await hcdIn(["export", ...remote(b)]);
      assert.is(exported.status, 0, exported.stderr);
      const file = join(dir.path, "rich.yaml");
      writeFileSync(file, exported.stdout);
      for (const node of [a, b]) {
        const back = await hcdIn(["apply", "-f", file, "--dry-run", "--prune", ...remote(node)], RICH_SECRETS);
        assert.equal([back.status, back.stdout.trim().split("\n")[0]], [0, "No changes: hcd matches the file."], back.stderr + back.stdout);
      }

      const more = join(dir.path, "more.yaml");
      writeFileSync(
        more,
        [
          "projects:",
          "  - name: moved",
          "    channels:",
          "      - {name: mail, kind: email, value: ops@example.com}",
          "    checks:",
          `      - {uuid: ${UUIDS[0]}, slug: first, channels: [mail]}`,
          `      - {uuid: ${UUIDS[1]}, slug: second, schedule: '0 3 * * *', depends_on: [first]}`,
          "    status_pages:",
          "      - {slug: moved-page, title: Moved, checks: [first, second]}",
          "",
        ].join("\n"),
      );
      const applied = await hcdIn(["apply", "-f", more, ...remote(a)]);
      assert.is(applied.status, 0, applied.stderr + applied.stdout);
      assert.match(applied.stdout, /Applied 5 changes\./);
      for (const uuid of UUIDS) assert.is((await fetch(`${b.url}/ping/${uuid}`)).status, 200, `the other node takes pings for ${uuid}`);
      const again = await hcdIn(["apply", "-f", more, "--prune", ...remote(b)]);
      assert.equal(again.stdout.trim(), "No changes: hcd matches the file.");
    } finally {
      dir.remove();
    }
  }));

test.run();
