// `hcd import healthchecks --db ... --url <a cluster node>`: the import's admin operations are commands of
// the partitions' replicated logs, so the other node answers for every check as Healthchecks did (its
// pings and flips from the cluster's history), takes the old keys and ping URLs, and signs the users in.
// The fixture's integrations are left out of this copy: its overdue checks go down while tested, and
// nothing may reach the services those integrations name.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { tempDir } from "../helpers.ts";
import { differencesFromRecordings, fixtureKeys, requireFixture } from "../ops/healthchecks-fixture.ts";
import { counts, hcdImport } from "../ops/import-run.ts";
import { withTwoNodes } from "./two-nodes.ts";

const TOKEN = "import-cluster-admin-token-0123456789";
const FIXTURE = requireFixture("the import into a cluster");

if (FIXTURE !== null) {
  const keys = fixtureKeys(FIXTURE);
  const [p1, p2] = keys.projects;

  test("imported through one node, the other answers as Healthchecks did, by the old URLs and keys", async () => {
    const dir = tempDir();
    try {
      const SQL = await initSqlJs();
      const copy = new SQL.Database(readFileSync(join(FIXTURE, "hc.sqlite3")));
      copy.run("DELETE FROM api_channel_checks");
      copy.run("DELETE FROM api_channel");
      const file = join(dir.path, "no-integrations.sqlite3");
      writeFileSync(file, copy.export());
      copy.close();
      await withTwoNodes("the import into a cluster", { ADMIN_TOKEN: TOKEN, SITE_ROOT: "http://127.0.0.1:18300" }, async (a, b) => {
        const run = await hcdImport(["--db", file, "--secret-key", keys.secret_key, "--url", a.url, "--token", TOKEN], {});
        assert.is(run.status, 0, run.stderr);
        assert.equal(counts(run.summary), { projects: 2, checks: 19, channels: 0, users: 3, pings: 35, flips: 22 });
        assert.equal(
          counts((await hcdImport(["--db", file, "--secret-key", keys.secret_key, "--url", b.url, "--token", TOKEN], {})).summary),
          { projects: 0, checks: 0, channels: 0, users: 0, pings: 0, flips: 0 },
          "the other node finds it all",
        );
        // the fixture's checks name integrations this copy has not: their channels differ; everything else is compared
        const ignoringChannels = (text: string) =>
          text
            .split("\n")
            .filter((line) => line !== "" && !/: channels /.test(line))
            .join("\n");
        assert.is(ignoringChannels(await differencesFromRecordings(FIXTURE, "p1", b.url, p1.api_key_rw, { history: true })), "");
        assert.is(ignoringChannels(await differencesFromRecordings(FIXTURE, "p2", b.url, p2.api_key_rw, { history: true })), "");
        assert.is((await fetch(`${b.url}/ping/${p1.ping_key}/cert-renewal`)).status, 200);
        assert.is(
          (await fetch(`${b.url}/api/v3/checks/`, { headers: { "x-api-key": p2.api_key_ro } })).status,
          200,
          "project 2's plain read-only key",
        );
        const signedIn = await fetch(`${b.url}/signin/password`, {
          method: "POST",
          body: new URLSearchParams({ email: "bob@example.org", password: keys.users[1].password }),
          redirect: "manual",
        });
        assert.is(signedIn.status, 303);
      });
    } finally {
      dir.remove();
    }
  });
}

test.run();
