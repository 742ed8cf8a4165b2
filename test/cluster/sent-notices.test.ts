// Delivered notifications in cluster mode, on a real nats-server: the stream keeps each check's newest
// records, newest first, a record sent twice (same entry id) once; and across two real hcd nodes, a down
// delivered to a real webhook receiver shows as sent on the check's page of either node.
import { randomUUID } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { SentNotice } from "../../engine/changes.ts";
import { openSentStream } from "../../cluster/sent-stream.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { withNatsServer } from "./held-appends.ts";
import { withTwoNodes } from "./two-nodes.ts";
import { until } from "../helpers.ts";

const TOKEN = "sent-notices-admin-token-0123456789";

const notice = (checkUuid: string, sentAt: number, id: string = randomUUID()): SentNotice => ({
  id,
  checkUuid,
  sentAt,
  flipAt: sentAt - 1,
  to: "down",
  channel: { id: "c1", name: "hook", kind: "webhook" },
});

test("a check's delivered notifications: its newest kept, newest first, a record sent twice kept once, other checks apart", async () => {
  await withNatsServer("delivered notifications in JetStream", async (connect) => {
    const sent = await openSentStream({ connection: await connect(), replicas: 1, keptPerCheck: 3 });
    const [a, b] = [randomUUID(), randomUUID()];
    const first = notice(a, 1_000);
    await sent.record(first);
    await sent.record(first); // the same delivery recorded again (a node lost before settling it)
    assert.equal(
      (await sent.list(a)).map((n) => n.sentAt),
      [1_000],
    );
    for (const at of [2_000, 3_000, 4_000]) await sent.record(notice(a, at));
    await sent.record(notice(b, 5_000));
    assert.equal(
      (await sent.list(a)).map((n) => n.sentAt),
      [4_000, 3_000, 2_000],
    );
    assert.equal(await sent.list(b), [notice(b, 5_000, (await sent.list(b))[0].id)]);
    assert.equal(await sent.list(randomUUID()), []);
  });
});

test("a down delivered by the cluster shows as sent on the check's page of either node", async () => {
  const receiver = await httpReceiver();
  try {
    await withTwoNodes(
      "delivered notifications across cluster nodes",
      { ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" },
      async (a, b) => {
        const project = await createProject(a, TOKEN, { name: "Alerts" });
        await addChannel(a, TOKEN, project.id, { kind: "webhook", name: "local hook", value: `${receiver.url}/hook` });
        const check = await ok<{ ping_url: string }>(
          call(a.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "alerting", channels: "*" } }),
        );
        const uuid = check.ping_url.split("/").pop() ?? "";
        const down = receiver.nextRequest();
        assert.is((await call(a.url, "POST", `/ping/${uuid}/fail`)).status, 200);
        assert.match((await down).body, '"status": "down"');
        for (const node of [a, b]) {
          const signIn = await fetch(`${node.url}/signin`, {
            method: "POST",
            body: new URLSearchParams({ key: TOKEN }),
            redirect: "manual",
          });
          const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
          await until(
            `the down shown as sent on ${node.url}`,
            async () =>
              (await (await fetch(`${node.url}/checks/${uuid}`, { headers: { cookie } })).text()).includes(
                "notification of &quot;down&quot; sent via local hook",
              ),
            20_000,
          );
        }
      },
    );
  } finally {
    await receiver.close();
  }
});

test.run();
