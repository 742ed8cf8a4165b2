// The API import's edges: the source's key never follows a redirect to another origin, Retry-After read in
// seconds and as a date, --from given with its API path, and --project putting the checks into a project
// hcd has (or refused when it has none).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { baseOf, retryAfterMs, SourceApi, SourceError } from "../../app/import/source-api.ts";
import { tempDir } from "../helpers.ts";
import { runCli } from "../../app/cli.ts";
import { fixtureKeys, requireFixture } from "./healthchecks-fixture.ts";
import { startReplay } from "./healthchecks-replay.ts";
import { counts, hcdImport } from "./import-run.ts";

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

test("a redirect to another origin is refused before the key goes there; one within the origin is followed", async () => {
  const keys: (string | undefined)[] = [];
  const elsewhere = await listen((req, res) => {
    keys.push(req.headers["x-api-key"] as string | undefined);
    res.end('{"checks": []}');
  });
  const source = await listen((req, res) => {
    if (req.url === "/api/v3/checks/") res.writeHead(302, { location: "/moved/" }).end();
    else if (req.url === "/moved/") res.writeHead(301, { location: `${elsewhere.url}/api/v3/checks/` }).end();
    else res.writeHead(404).end();
  });
  try {
    const api = new SourceApi({ from: source.url, apiKey: "hcw_secretsecretsecretsecret00", progress: () => {} });
    const refused = await api.get("/api/v3/checks/").then(
      () => null,
      (error: unknown) => error,
    );
    assert.instance(refused, SourceError);
    assert.match(String((refused as Error).message), /redirects to http:\/\/127\.0\.0\.1:\d+\/api\/v3\/checks\/: give that as --from/);
    assert.equal(keys, [], "the other origin never heard the key");
  } finally {
    await source.close();
    await elsewhere.close();
  }
});

test("--from with or without its API path; Retry-After in seconds, as a date, or unreadable", () => {
  assert.is(baseOf("https://hc.example.org/api/v3/"), "https://hc.example.org");
  assert.is(baseOf("https://example.org/hc/api/"), "https://example.org/hc");
  assert.is(baseOf("https://healthchecks.io"), "https://healthchecks.io");
  assert.throws(() => baseOf("ftp://example.org"), /http\(s\) URL/);
  assert.throws(() => baseOf("https://user:pass@example.org"), /no credentials/);
  assert.is(retryAfterMs("7", 300_000), 7_000);
  assert.is(retryAfterMs("100000", 300_000), 300_000, "at most the wait allowed");
  const inTwoSeconds = new Date(Date.now() + 2_000).toUTCString();
  assert.ok(retryAfterMs(inTwoSeconds, 300_000) <= 2_000 && retryAfterMs(inTwoSeconds, 300_000) > 0);
  assert.is(retryAfterMs("soon", 300_000), 10_000);
  assert.is(retryAfterMs(null, 300_000), 10_000);
});

const FIXTURE = requireFixture("the API import into a given project");
if (FIXTURE !== null) {
  const p1 = fixtureKeys(FIXTURE).projects[0];

  test("--project puts the checks into a project hcd has; an unknown one ends the import, making nothing", async () => {
    const replay = await startReplay(FIXTURE);
    const dir = tempDir();
    const env = { DATA_DIR: dir.path };
    const printed: string[] = [];
    const log = console.log;
    try {
      console.log = (text: string) => printed.push(text);
      assert.is(await runCli(["project", "create", "--name", "Ops", "--check-limit", "50"], env), 0);
      console.log = log;
      const project = (JSON.parse(printed.join("\n")) as { id: string }).id;
      const unknown = await hcdImport(
        ["--from", replay.url, "--api-key", p1.api_key_rw, "--project", "00000000-0000-4000-8000-000000000000"],
        env,
      );
      assert.equal([unknown.status, unknown.summary], [1, null]);
      assert.match(unknown.stderr, /hcd has no project 00000000-0000-4000-8000-000000000000/);
      const run = await hcdImport(["--from", replay.url, "--api-key", p1.api_key_rw, "--project", project], env);
      assert.is(run.status, 0, run.stderr);
      assert.equal(counts(run.summary), { projects: 0, checks: 16, channels: 8, users: 0, pings: 0, flips: 0 });
      assert.match(run.stderr, new RegExp(`project "[^"]+" \\(${project}\\): found`));
    } finally {
      console.log = log;
      await replay.close();
      dir.remove();
    }
  });
}

test.run();
