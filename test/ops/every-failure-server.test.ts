// every_failure on a real server process (CONTRACT "Alerting, third part"): of two webhook integrations of
// a check, the one with the option hears of a second failure while the check is down, the other only of
// the change to down and back up. Every wait ends on a request received; an integration's requests come
// in the order of their flips, so a stray failure notification would reach it before its recovery.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "every-failure-server-admin-token-0123456789";

test("the integration with every_failure hears of each failure while down; the other of the changes only", async () => {
  const dir = tempDir();
  const every = await httpReceiver(),
    changes = await httpReceiver();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" } });
  try {
    const project = await createProject(server, TOKEN, { name: "Ops" });
    const hook = (receiver: typeof every, name: string, everyFailure: boolean) =>
      ok(
        call(server.url, "POST", `/admin/v1/projects/${project.id}/channels`, {
          headers: { authorization: `Bearer ${TOKEN}` },
          body: {
            kind: "webhook",
            name,
            every_failure: everyFailure,
            value: {
              method_down: "POST",
              url_down: `${receiver.url}/down`,
              body_down: "$NAME $STATUS",
              method_up: "POST",
              url_up: `${receiver.url}/up`,
              body_up: "$NAME $STATUS",
            },
          },
        }),
      );
    await hook(every, "every", true);
    await hook(changes, "changes", false);
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "sync", timeout: 3600, channels: "*" } }),
    );
    const firstEvery = every.nextRequest(),
      firstChanges = changes.nextRequest();
    await call(server.url, "POST", `/ping/${check.uuid}/fail`);
    assert.equal([(await firstEvery).path, (await firstChanges).path], ["/down", "/down"]);
    const again = every.nextRequest();
    await call(server.url, "POST", `/ping/${check.uuid}/fail`);
    assert.equal([(await again).path, (await again).body], ["/down", "sync down"], "the second failure, while down");
    const upEvery = every.nextRequest(),
      upChanges = changes.nextRequest();
    await call(server.url, "POST", `/ping/${check.uuid}`);
    await Promise.all([upEvery, upChanges]);
    assert.equal(
      every.requests.map((r) => r.path),
      ["/down", "/down", "/up"],
    );
    assert.equal(
      changes.requests.map((r) => r.path),
      ["/down", "/up"],
    );
  } finally {
    assert.is(await stopServer(server), 0);
    await every.close();
    await changes.close();
    dir.remove();
  }
});

test.run();
