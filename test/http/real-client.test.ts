// A real client of the Management API at its default settings: the npm healthchecks-io-client, given only
// hcd's base URL and an API key, speaks v1 (its default) to a real hcd process over loopback.
import { createRequire } from "node:module";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { createProject, startServer, stopServer } from "../security/real-server.ts";

type Json = Record<string, unknown>;
/** The part of healthchecks-io-client (CommonJS, no types) this test uses. */
type ClientModule = {
  HealthChecksApiClient: new (options: { apiKey: string; baseUrl: string }) => {
    apiVersion: number;
    createCheck(info: Json): Promise<Json>;
    getChecks(tags?: string[]): Promise<{ checks: Json[] }>;
    getCheck(uuid: string): Promise<Json>;
    pauseCheck(uuid: string): Promise<Json>;
    listPings(uuid: string): Promise<{ pings: Json[] }>;
    listFlips(uuid: string): Promise<unknown>;
    getIntegrations(): Promise<{ channels: Json[] }>;
    deleteCheck(uuid: string): Promise<Json>;
  };
  HealthChecksPingClient: new (options: { uuid: string; baseUrl: string }) => { start(): Promise<unknown> };
};
const { HealthChecksApiClient, HealthChecksPingClient } = createRequire(import.meta.url)("healthchecks-io-client") as ClientModule;

const ADMIN = "admin-token-real-client-0123456789";

test("healthchecks-io-client creates, lists, pauses and deletes a check on hcd, through API v1", async () => {
  delete process.env.HC_API_KEY; // the client would take this variable over its apiKey option
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: ADMIN } });
  try {
    const project = await createProject(server, ADMIN, { name: "client" });
    const client = new HealthChecksApiClient({ apiKey: project.api_key, baseUrl: server.url });
    assert.is(client.apiVersion, 1, "the client's default version");

    const created = await client.createCheck({ name: "Nightly Café backup", tags: "prod db", timeout: 3600, grace: 120 });
    const uuid = created.uuid as string;
    assert.equal(
      [created.name, created.slug, created.status, created.timeout],
      ["Nightly Café backup", "nightly-cafe-backup", "new", 3600],
    );
    assert.is(new URL(String(created.update_url)).pathname, `/api/v1/checks/${uuid}`);
    await client.createCheck({ name: "other", tags: "dev" });

    assert.equal((await client.getChecks()).checks.map((c) => c.name).sort(), ["Nightly Café backup", "other"]);
    assert.equal(
      (await client.getChecks(["prod", "db"])).checks.map((c) => c.uuid),
      [uuid],
    );

    await new HealthChecksPingClient({ uuid, baseUrl: `${server.url}/ping` }).start();
    const running = await client.getCheck(uuid);
    assert.equal([running.status, running.started], ["started", true]); // v1's status of a running check
    assert.equal(
      (await client.listPings(uuid)).pings.map((p) => p.type),
      ["start"],
    );

    const paused = await client.pauseCheck(uuid);
    assert.equal([paused.status, paused.started], ["paused", false]);
    assert.is((await client.getCheck(uuid)).status, "paused");
    const flips = (await client.listFlips(uuid)) as Json[];
    assert.equal(
      flips.map((flip) => flip.up),
      [0],
    ); // the pause
    assert.match(String(flips[0].timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    assert.equal((await client.getIntegrations()).channels, []);

    const deleted = await client.deleteCheck(uuid);
    assert.is(deleted.uuid, uuid);
    assert.equal(
      (await client.getChecks()).checks.map((c) => c.name),
      ["other"],
    );
    const gone = await client.getCheck(uuid).then(
      () => null,
      (error: { statusCode?: number }) => error,
    );
    assert.is(gone?.statusCode, 404);
  } finally {
    assert.is(await stopServer(server), 0);
    dir.remove();
  }
});

test.run();
