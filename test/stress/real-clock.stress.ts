// A deadline on the real clock, in the real process: a check with timeout 60 s and grace 60 s, pinged
// once, goes down 120-135 s later (the shard's one-second tick, plus delivery) and its webhook hears
// exactly one "down". About two and a half minutes of real time, hence a stress test.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { requestsUntil, webhookTo } from "../http/real-notify.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "real-clock-admin-token-0123456789abcdef";

test("timeout 60 s + grace 60 s on the real clock: down within 120-135 s of the ping, one webhook request", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const server = await startServer({
    dataDir: dir.path,
    env: { ADMIN_TOKEN: TOKEN, CLOCK: "real", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" },
  });
  try {
    const project = await createProject(server, TOKEN, { name: "real clock" });
    await webhookTo(server, TOKEN, project.id, receiver.url);
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", {
        key: project.api_key,
        body: { name: "nightly", timeout: 60, grace: 60, channels: "*" },
      }),
    );
    const status = async () =>
      (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${check.uuid}`, { key: project.api_key }))).status;
    const pingedAt = Date.now(); // taken before the ping: the deadline is at least 120 s after it
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    assert.is(await status(), "up");
    const [down] = await requestsUntil(receiver.requests, 1, 140_000);
    const downAfterMs = Date.now() - pingedAt;
    console.log(`  down request ${(downAfterMs / 1000).toFixed(1)} s after the ping (deadline at 120 s)`);
    assert.ok(downAfterMs >= 120_000 && downAfterMs <= 135_000, `down after ${downAfterMs} ms, expected 120-135 s`);
    assert.equal([down.method, down.path, down.body], ["POST", "/down/nightly", "nightly is down"]);
    assert.is(await status(), "down");
    // the marker: the up flip's request comes after any repeat of the down on this channel
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    await requestsUntil(receiver.requests, 2, 20_000);
    assert.equal(
      receiver.requests.map((r) => r.path),
      ["/down/nightly", "/up/nightly"],
      "exactly one down",
    );
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await receiver.close();
    dir.remove();
  }
});

test.run();
