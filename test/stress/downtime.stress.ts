// hcd's own downtime on the real clock, in real processes (CONTRACT "hcd's own downtime and clock"): two
// checks of timeout 60 s and grace 60 s are pinged, hcd stops for 150 s (their deadlines fall in the
// gap) and starts again. The one whose job pings again 25 s after the restart stays up, with no
// notification; the silent one goes down 60 s after the restart, not at once, and its message names the
// gap. About four minutes of real time.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { requestsUntil } from "../http/real-notify.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "downtime-admin-token-0123456789abcdef";
const ENV = { ADMIN_TOKEN: TOKEN, CLOCK: "real", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a restart after 150 s sends no false down; the silent check goes down a grace after the restart, naming the gap", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  let server = await startServer({ dataDir: dir.path, env: ENV });
  try {
    const project = await createProject(server, TOKEN, { name: "downtime" });
    await addChannel(server, TOKEN, project.id, { kind: "slack", name: "chat", value: `${receiver.url}/chat` });
    const create = (name: string) =>
      ok<{ uuid: string }>(
        call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name, timeout: 60, grace: 60, channels: "*" } }),
      );
    const [job, silent] = [await create("job"), await create("silent")];
    for (const check of [job, silent]) assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    const pingedAt = Date.now();
    assert.is(await stopServer(server), 0, server.output());
    const stoppedAt = Date.now();

    await sleep(pingedAt + 150_000 - Date.now()); // both deadlines (120 s after the pings) fall in the gap
    server = await startServer({ dataDir: dir.path, env: ENV });
    const restartedAt = Date.now();
    assert.match(server.output(), /hcd was not running for 1[45]\d s: 2 check\(s\)/, server.output());
    const status = async (uuid: string) =>
      (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key }))).status;
    assert.equal([await status(job.uuid), await status(silent.uuid)], ["grace", "grace"], "late, not down, on the restart");

    await sleep(restartedAt + 25_000 - Date.now()); // the job's next run gets through
    assert.is((await call(server.url, "GET", `/ping/${job.uuid}`)).status, 200);

    // the marker: the silent check's down comes a grace after the restart; nothing came before it
    const [down] = await requestsUntil(receiver.requests, 1, 90_000);
    const downAfterRestartMs = Date.now() - restartedAt;
    console.log(
      `  stopped ${((restartedAt - stoppedAt) / 1000).toFixed(1)} s; silent check down ${(downAfterRestartMs / 1000).toFixed(1)} s after the restart`,
    );
    assert.ok(downAfterRestartMs >= 60_000, `down ${downAfterRestartMs} ms after the restart, before its grace`);
    assert.match(down.body, /silent/);
    assert.match(down.body, /hcd was not running from \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00 to /);
    assert.equal([await status(job.uuid), await status(silent.uuid)], ["up", "down"]);
    assert.is(receiver.requests.length, 1, "exactly one notification: the silent check's down");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await receiver.close();
    dir.remove();
  }
});

test.run();
