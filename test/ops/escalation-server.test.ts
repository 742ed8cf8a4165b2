// Escalation on a real server process (CONTRACT "Alerting, third part") with CLOCK=virtual and the admin
// clock endpoint: a check down and not acknowledged reaches its first step's integration (a real webhook
// receiver) once the clock passes the step, and only then; a restart neither repeats that step nor loses
// the next one, which the acknowledgement then stops. Every wait ends on a request received, never on a
// timing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import type { RealServer } from "../security/real-server.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "escalation-server-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };

test("a step reaches its integration once the virtual clock passes it, not again after a restart; acknowledging stops the next", async () => {
  const dir = tempDir();
  const ops = await httpReceiver(),
    pager = await httpReceiver(),
    lead = await httpReceiver();
  const env = { ADMIN_TOKEN: TOKEN, CLOCK: "virtual", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" };
  let server: RealServer = await startServer({ dataDir: dir.path, env });
  try {
    const project = await createProject(server, TOKEN, { name: "Ops" });
    const ids: Record<string, string> = {};
    for (const [name, receiver] of [
      ["ops", ops],
      ["pager", pager],
      ["lead", lead],
    ] as const) {
      ids[name] = (
        await addChannel(server, TOKEN, project.id, {
          kind: "webhook",
          name,
          value: {
            method_down: "POST",
            url_down: `${receiver.url}/${name}`,
            body_down: "$NAME is $STATUS",
            method_up: "POST",
            url_up: `${receiver.url}/${name}-up`,
            body_up: "$NAME is $STATUS",
          },
        })
      ).id;
    }
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", {
        key: project.api_key,
        body: {
          name: "backup",
          timeout: 3600,
          channels: "ops",
          escalation: [
            { after: 900, channels: "pager" },
            { after: 3600, channels: "lead" },
          ],
        },
      }),
    );
    const advance = (seconds: number) => ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: seconds } }));
    const opsDown = ops.nextRequest();
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}/fail`)).status, 200);
    assert.is((await opsDown).path, "/ops");
    await advance(899);
    const stepOne = pager.nextRequest();
    await advance(2);
    assert.equal([(await stepOne).path, (await stepOne).body], ["/pager", "backup is down"]);
    assert.is(pager.requests.length, 1, "nothing reached the pager before the step");

    assert.is(await stopServer(server), 0);
    server = await startServer({ dataDir: dir.path, env });
    await advance(60);
    assert.equal(
      (await ok<{ escalated: number }>(call(server.url, "GET", `/api/v3/checks/${check.uuid}`, { key: project.api_key }))).escalated,
      1,
    );
    await ok(call(server.url, "POST", `/api/v3/checks/${check.uuid}/acknowledge`, { key: project.api_key }));
    await advance(3600); // past the second step: acknowledged, it does not come
    const after = await ok<{ escalated: number }>(call(server.url, "GET", `/api/v3/checks/${check.uuid}`, { key: project.api_key }));
    assert.is(after.escalated, 1, "the second step was never reached (its notification would be queued with it)");
    const opsUp = ops.nextRequest();
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    assert.is((await opsUp).path, "/ops-up");
    const pagerUp = pager.requests.length >= 2 ? Promise.resolve(pager.requests[1]) : pager.nextRequest();
    assert.is((await pagerUp).path, "/pager-up", "the integration the step reached hears of the recovery");
    // a channel's notifications go out in the order of their flips: a step sent again after the restart
    // would have reached the pager before the recovery
    assert.equal(
      pager.requests.map((r) => r.path),
      ["/pager", "/pager-up"],
    );
    // the recoveries just delivered may still be leaving the outbox: only the lead's entries count
    const outbox = await ok<{ outbox: { channel: string }[] }>(call(server.url, "GET", "/admin/v1/outbox", { headers: admin }));
    assert.equal(
      [lead.requests, outbox.outbox.filter((entry) => entry.channel === ids.lead)],
      [[], []],
      "nothing was ever queued for the second step",
    );
  } finally {
    await stopServer(server);
    for (const receiver of [ops, pager, lead]) await receiver.close();
    dir.remove();
  }
});

test.run();
