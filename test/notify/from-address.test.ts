// DEFAULT_FROM_EMAIL on a real server and a real SMTP server: the From of an alert, an invitation, a password
// reset and a test notification; an address that is not one is refused at start.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { smtpReceiver } from "./receivers.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import { postForm } from "../security/form-client.ts";
import { spawnSync } from "node:child_process";
import { MAIN } from "../security/real-server.ts";

const TOKEN = "from-address-token-0123456789abcd";
const admin = { authorization: `Bearer ${TOKEN}` };
const FROM = "alerts@ops.example.org";

async function until(what: string, done: () => boolean): Promise<void> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > 20_000) throw new Error(`no ${what} in 20 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("every mail hcd sends comes From DEFAULT_FROM_EMAIL", async () => {
  const smtp = await smtpReceiver();
  const dir = tempDir();
  const server = await startServer({
    dataDir: dir.path,
    env: { ADMIN_TOKEN: TOKEN, SMTP_URL: smtp.url, DEFAULT_FROM_EMAIL: FROM, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" },
  });
  try {
    const subjects = () => smtp.mails.map((m) => m.subject ?? "");
    // an invitation
    await ok(call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "new@corp.example" } }));
    await until("invitation", () => subjects().includes("Your invitation to hcd"));
    // a password reset
    await ok(
      call(server.url, "POST", "/admin/v1/users", {
        headers: admin,
        body: { email: "old@corp.example", password: "an old long password" },
      }),
    );
    assert.ok([200, 303].includes((await postForm(server.url, "/reset", { email: "old@corp.example" })).status));
    await until("reset mail", () => smtp.mails.length >= 2);
    // an alert: an email integration on a check that fails
    const project = await ok<{ id: string; api_key: string }>(
      call(server.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: "Mail" } }),
    );
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/channels`, {
        headers: admin,
        body: { kind: "email", name: "ops", value: "ops@corp.example" },
      }),
    );
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly", channels: "*" } }),
    );
    await call(server.url, "GET", `/ping/${check.uuid}/fail`);
    await until("alert", () => subjects().some((s) => s.startsWith("DOWN")));
    assert.ok(smtp.mails.length >= 3);
    assert.equal([...new Set(smtp.mails.map((m) => m.from?.value[0]?.address))], [FROM], subjects().join(" / "));
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await smtp.close();
    dir.remove();
  }
});

test("a DEFAULT_FROM_EMAIL that is not an address stops the start with its name", () => {
  const dir = tempDir();
  try {
    const run = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, PORT: "0", DATA_DIR: dir.path, DEFAULT_FROM_EMAIL: "not an address" },
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.is.not(run.status, 0);
    assert.match(run.stdout + run.stderr, "DEFAULT_FROM_EMAIL=not an address: expected an email address");
  } finally {
    dir.remove();
  }
});

test.run();
