// What `npm start` runs and no in-process test does: notifications sent from the worker-thread pool's
// shards, and the SMTP listener inside the real process. Both spawn `node dist/app/main.js`.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createTransport } from "nodemailer";
import { shardOf } from "../../host/routing.ts";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { requestsUntil, webhookTo } from "./real-notify.ts";

const TOKEN = "production-paths-admin-token-0123456789";

test("a check's down and up reach a webhook from the worker-thread pool, exactly once each, in order", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SHARDS: "2", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" } });
  try {
    // projects until both shards have one (ids are random): each shard's worker must deliver its own
    const names: string[] = [];
    const shards = new Set<number>();
    for (let i = 0; shards.size < 2; i++) {
      assert.ok(i < 40, "40 random projects all on one shard");
      const label = String.fromCharCode(97 + (i % 26)) + String(i);
      const project = await createProject(server, TOKEN, { name: `project-${label}` });
      await webhookTo(server, TOKEN, project.id, receiver.url);
      const check = await ok<{ uuid: string }>(
        call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: `job-${label}`, channels: "*" } }),
      );
      assert.is((await call(server.url, "POST", `/ping/${check.uuid}/fail`)).status, 200);
      await requestsUntil(receiver.requests, 2 * names.length + 1, 20_000);
      // the marker: the up flip's request must come after any repeat of the down on this channel
      assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
      await requestsUntil(receiver.requests, 2 * names.length + 2, 20_000);
      names.push(`job-${label}`);
      shards.add(shardOf(project.id, 2));
    }
    assert.equal(
      receiver.requests.map((r) => `${r.method} ${r.path} ${r.body}`),
      names.flatMap((name) => [`POST /down/${name} ${name} is down`, `POST /up/${name} ${name} is up`]),
    );
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await receiver.close();
    dir.remove();
  }
});

test("the SMTP listener of the real process turns a mail into a ping the API shows", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SMTP_PORT: "0", EMAIL_DOMAIN: "mail.hcd.test" } });
  const start = /hcd: smtp listening on (\S+):(\d+) for \*@(\S+)/.exec(server.output());
  const transport = createTransport({ host: "127.0.0.1", port: Number(start?.[2]), secure: false, ignoreTLS: true });
  try {
    assert.ok(start !== null && Number(start[2]) > 0, `a start line naming the SMTP port:\n${server.output()}`);
    assert.is(start?.[3], "mail.hcd.test");
    const project = await createProject(server, TOKEN, { name: "mail" });
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly" } }),
    );
    const sent = await transport.sendMail({
      from: "cron@example.com",
      to: `${check.uuid}@mail.hcd.test`,
      subject: "backup done",
      text: "all good",
    });
    assert.equal(sent.rejected, []);
    // the listener answers 250 once the ping is committed: the API shows it at once
    const { pings } = await ok<{ pings: { type: string; scheme: string; n: number }[] }>(
      call(server.url, "GET", `/api/v3/checks/${check.uuid}/pings/`, { key: project.api_key }),
    );
    assert.equal(
      pings.map((p) => [p.n, p.type, p.scheme]),
      [[1, "success", "email"]],
    );
    const shown = await ok<{ status: string; n_pings: number }>(
      call(server.url, "GET", `/api/v3/checks/${check.uuid}`, { key: project.api_key }),
    );
    assert.equal([shown.status, shown.n_pings], ["up", 1]);
  } finally {
    transport.close();
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
