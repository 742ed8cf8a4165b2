// Structured logs: JSON lines with the configuration masked, access lines by route, delivery failures
// by ids, and no secret anywhere in the output; text form and levels in-process.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createLogger, maskedConfig } from "../../host/log.ts";
import { closedPort, tempDir } from "../helpers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const ADMIN = "admin-token-log-test-0123456789abcdef";
const SCRAPER = "metrics-token-log-test-0123456789";
const SMTP_PASSWORD = "smtp-password-log-test-42";

test("LOG_FORMAT=json: start and stop with the configuration masked, access lines, delivery failures; no secret logged", async () => {
  const dir = tempDir();
  const server = await startServer({
    dataDir: dir.path,
    env: {
      LOG_FORMAT: "json",
      LOG_ACCESS: "true",
      ADMIN_TOKEN: ADMIN,
      METRICS_TOKEN: SCRAPER,
      INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
      SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:${await closedPort()}`,
    },
  });
  const secrets = [ADMIN, SCRAPER, SMTP_PASSWORD];
  try {
    const project = await createProject(server, ADMIN, { name: "p" });
    secrets.push(project.api_key, project.api_key_readonly, project.ping_key);
    const hookSecret = "hook-path-secret-0123456789";
    secrets.push(hookSecret);
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/channels`, {
        headers: { authorization: `Bearer ${ADMIN}` },
        body: { kind: "webhook", value: `http://127.0.0.1:${await closedPort()}/${hookSecret}` },
      }),
    );
    await ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "c", slug: "job", channels: "*" } }));
    const body = "ping-body-that-is-not-logged";
    secrets.push(body);
    assert.is((await call(server.url, "POST", `/ping/${project.ping_key}/job`, { body })).status, 200);
    assert.is((await call(server.url, "POST", `/ping/${project.ping_key}/job/fail`, { body })).status, 200); // down: a webhook to nowhere
    // the failed delivery is logged (a positive marker that comes after the requests' lines)
    for (let tries = 0; tries < 100 && !server.output().includes("notification delivery failed"); tries++)
      await new Promise((r) => setTimeout(r, 100));
  } finally {
    assert.is(await stopServer(server), 0);
    dir.remove();
  }
  const lines = server
    .output()
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const start = lines.find((l) => String(l.msg).startsWith("listening on"));
  const config = start?.config as Record<string, unknown>;
  assert.is(config.adminToken, "[masked]");
  assert.is(config.metricsToken, "[masked]");
  assert.match(String(config.smtpUrl), /^smtp:\/\/mailer:\[masked\]@127\.0\.0\.1:\d+$/);
  assert.is(start?.level, 30);
  assert.ok(typeof start?.time === "string" && typeof start?.pid === "number");
  const access = lines.filter((l) => l.msg === "request");
  assert.ok(
    access.some((l) => l.route === "/ping/:key/:key" && l.status === 200 && l.method === "POST"),
    JSON.stringify(access),
  );
  assert.ok(access.some((l) => l.route === "/api/v3/checks/" && l.status === 201));
  const failure = lines.find((l) => l.msg === "notification delivery failed, will retry");
  assert.is(failure?.kind, "webhook");
  assert.is(failure?.attempts, 1);
  assert.is(failure?.error, "Connection failed");
  assert.ok(lines.some((l) => l.msg === "SIGTERM received, shutting down"));
  assert.is(lines[lines.length - 1].msg, "stopped");
  for (const secret of secrets) assert.not.ok(server.output().includes(secret), `a secret was logged: ${secret.slice(0, 12)}…`);
});

test("text form: 'hcd: <message>' with fields and the error's stack; levels below LOG_LEVEL are dropped", () => {
  const written: [string, string][] = [];
  const [out, err] = [process.stdout.write, process.stderr.write];
  process.stdout.write = (text: string) => {
    written.push(["out", text]);
    return true;
  };
  process.stderr.write = (text: string) => {
    written.push(["err", text]);
    return true;
  };
  try {
    const logger = createLogger("text", "info");
    logger.debug("not shown");
    logger.info({ shard: 1 }, "hello");
    logger.error({ err: new Error("boom") }, "it failed");
    createLogger("text", "error").warn("dropped");
  } finally {
    [process.stdout.write, process.stderr.write] = [out, err];
  }
  assert.is(written.length, 2);
  assert.equal(written[0], ["out", "hcd: hello shard=1\n"]);
  assert.is(written[1][0], "err");
  assert.ok(written[1][1].startsWith("hcd: it failed: Error: boom\n    at "), written[1][1]);
});

test("maskedConfig masks tokens and URL passwords and keeps the rest", () => {
  assert.equal(
    maskedConfig({ port: 8000, adminToken: "t", metricsToken: null, smtpUrl: "smtps://u:p@mail:465", siteRoot: "https://hc.example" }),
    { port: 8000, adminToken: "[masked]", metricsToken: null, smtpUrl: "smtps://u:[masked]@mail:465", siteRoot: "https://hc.example" },
  );
});

test("maskedConfig masks at every depth: the service tokens under services, a password in a nested list", () => {
  assert.equal(
    maskedConfig({
      services: { telegramBotToken: "tg", twilioAuth: "tw", twilioAccount: "AC1", shellEnabled: false },
      cluster: { servers: [{ url: "nats://u:p@h:4222", password: "p" }] },
    }),
    {
      services: { telegramBotToken: "[masked]", twilioAuth: "[masked]", twilioAccount: "AC1", shellEnabled: false },
      cluster: { servers: [{ url: "nats://u:[masked]@h:4222", password: "[masked]" }] },
    },
  );
});

test.run();
