// Secrets: API and ping keys come from a CSPRNG with ≥128 bits and are unique; keys and tokens are compared
// in constant time (the code path is inspected, not timed); the admin token never appears in the logs,
// except in the one "generated an admin token" line of the start that generated it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { call, createProject, rawRequest, startServer, stopServer } from "./real-server.ts";
import { serviceSettingsOf, settingSecrets } from "../../notify/kinds/settings.ts";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const source = (path: string) => readFileSync(join(ROOT, path), "utf8");
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

test("API keys (192 bits) and ping keys (128 bits) are base64url, unique over 150 projects, and evenly spread", async () => {
  const dir = tempDir();
  const token = "secrets-test-admin-token-0123456789";
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: token, CLOCK: "virtual" } });
  try {
    const projects: ProjectJson[] = [];
    for (let i = 0; i < 150; i++) projects.push(await createProject(server, token, { name: `p${i}` }));
    const apiKeys = projects.flatMap((p) => [p.api_key, p.api_key_readonly]);
    const pingKeys = projects.map((p) => p.ping_key);
    for (const key of apiKeys) assert.match(key, /^[A-Za-z0-9_-]{32}$/, "32 base64url characters = 24 random bytes");
    for (const key of pingKeys) assert.match(key, /^[A-Za-z0-9_-]{22}$/, "22 base64url characters = 16 random bytes");
    const all = [...apiKeys, ...pingKeys, ...projects.map((p) => p.id)];
    assert.is(new Set(all).size, all.length, "every key is unique");
    // 300 × 32 characters: each of the 64 symbols is expected 150 times; a broken generator shows far off
    const counts = new Map<string, number>();
    for (const key of apiKeys) for (const ch of key) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    const rare = [...BASE64URL].filter((ch) => (counts.get(ch) ?? 0) < 75);
    const common = [...BASE64URL].filter((ch) => (counts.get(ch) ?? 0) > 250);
    assert.equal([rare, common], [[], []], "character frequencies of a uniform source");
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test("keys, ids and tokens come from node:crypto (randomBytes, randomUUID), never Math.random", () => {
  const pool = source("host/new-records.ts");
  // a project's keys are new random ones, unless brought over whole from Healthchecks (kept)
  assert.match(pool, /apiKey: kept\.apiKey \?\? secret\(24\),\s*apiKeyReadonly: kept\.apiKeyReadonly \?\? secret\(24\)/);
  assert.match(pool, /pingKey: kept\.pingKey \?\? secret\(16\)/);
  assert.match(pool, /function secret\(bytes: number\): string \{\s*return randomBytes\(bytes\)\.toString\("base64url"\);/);
  assert.match(pool, /badgeKey: kept\.badgeKey \?\? randomUUID\(\)/);
  // the admin token and the badge secret
  assert.match(source("app/config.ts"), /const secret = randomBytes\(32\)\.toString\("base64url"\);/);
  for (const file of [
    "host/pool.ts",
    "host/new-records.ts",
    "host/project-keys.ts",
    "app/config.ts",
    "http/auth.ts",
    "app/shard-setup.ts",
  ]) {
    assert.not.match(source(file), /Math\.random/, file);
  }
});

test("API keys, the admin token, badge signatures, CSRF tokens and password hashes are compared with timingSafeEqual", () => {
  const keys = source("host/project-keys.ts");
  const authenticate = /authenticate\(apiKey: string\): Caller \| null \{[\s\S]*?\n {2}\}/.exec(keys)?.[0] ?? "";
  assert.match(authenticate, /timingSafeEqual\(a, b\)/, "ProjectKeys.authenticate compares the stored key in constant time");
  assert.match(authenticate, /this\.#apiKeys\.get\(digest\(apiKey\)\)/, "the directory is looked up by a digest, not the key itself");
  const auth = source("http/auth.ts");
  const admin = /export function authorizeAdmin[\s\S]*?\n\}/.exec(auth)?.[0] ?? "";
  assert.match(admin, /timingSafeEqual\(given, expected\)/, "the admin token is compared in constant time");
  assert.match(admin, /createHash\("sha256"\)/, "over equal-length digests");
  assert.match(source("http/badge-urls.ts"), /timingSafeEqual\(ours, theirs\)/);
  const csrf = /export function csrfMatches[\s\S]*?\n\}/.exec(source("http/dashboard/sessions.ts"))?.[0] ?? "";
  assert.match(csrf, /timingSafeEqual\(a, b\)/, "a form's CSRF token is compared in constant time");
  assert.match(source("host/passwords.ts"), /timingSafeEqual\(given, expected\)/, "a password's hash is compared in constant time");
  assert.not.match(auth, /=== token\b|\btoken ===|apiKey === (?!null|"")/, "no plain comparison of secrets");
});

/** Uses the admin token in every way a client could, right and wrong, so that any logging of it shows. */
async function exercise(server: RealServer, token: string): Promise<void> {
  const bearer = { authorization: `Bearer ${token}` };
  assert.is((await call(server.url, "GET", "/admin/v1/projects", { headers: bearer })).status, 200);
  const project = JSON.parse(
    (await call(server.url, "POST", "/admin/v1/projects", { headers: bearer, body: { name: "p" } })).text,
  ) as ProjectJson;
  const attempts: [string, string, { headers?: Record<string, string>; body?: unknown }][] = [
    ["GET", "/admin/v1/projects", { headers: { authorization: `Bearer ${token}x` } }],
    ["GET", "/admin/v1/projects", { headers: { authorization: token } }],
    ["GET", "/admin/v1/projects", { headers: { authorization: `Basic ${Buffer.from(`admin:${token}`).toString("base64")}` } }],
    ["POST", "/admin/v1/projects", { headers: bearer, body: `{"name": "${token}` }],
    ["POST", "/admin/v1/projects", { headers: bearer, body: { name: token.repeat(10) } }],
    ["POST", `/admin/v1/projects/${token}/channels`, { headers: bearer, body: { kind: "email", value: "a@b.c" } }],
    ["POST", "/admin/v1/clock", { headers: bearer, body: { advance: token } }],
    ["GET", `/admin/v1/projects?token=${token}`, {}],
    ["GET", "/api/v3/checks/", { headers: { "x-api-key": token } }],
    ["POST", "/api/v3/checks/", { body: { api_key: token, name: token } }],
    ["POST", "/api/v3/checks/", { headers: { "x-api-key": project.api_key }, body: { name: token, timeout: token } }],
    ["GET", `/ping/${token}`, {}],
    ["POST", `/ping/${project.ping_key}/${token.toLowerCase().replace(/[^a-z0-9-]/g, "")}?create=1`, { body: token }],
    ["GET", `/badge/${token}/x/y.svg`, {}],
    ["GET", `/nowhere/${token}`, { headers: { "x-token": token } }],
  ];
  for (const [method, path, opts] of attempts) {
    const answer = await call(server.url, method, path, opts);
    assert.ok(answer.status < 500, `${method} ${path} → ${answer.status}`);
  }
  // malformed HTTP carrying the token, and clients that go away mid-body
  await rawRequest(server.port, `GET /admin/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\0\r\n\r\n`, {
    timeoutMs: 500,
  });
  await rawRequest(
    server.port,
    `POST /admin/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Length: 100\r\n\r\n{"name": "${token}`,
    { timeoutMs: 300 },
  );
  await rawRequest(server.port, `POST /ping/${token} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${token}\r\nContent-Length: 100\r\n\r\n${token}`, {
    timeoutMs: 300,
  });
  // no wait here: the callers check the output only after the process has exited, and a graceful stop
  // handles (and would log) these cut connections before it exits
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

test("an admin token given by ADMIN_TOKEN never appears in the server's output", async () => {
  const dir = tempDir();
  const token = "env-admin-token-Zq8vK2mW9xT4nB7c";
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: token } });
  try {
    await exercise(server, token);
  } finally {
    assert.is(await stopServer(server), 0);
    dir.remove();
  }
  assert.match(server.output(), /SIGTERM received/, "the output of the whole session was captured");
  assert.is(occurrences(server.output(), token), 0, server.output());
});

test("a generated admin token appears once, in the line announcing it; a restart never prints it again", async () => {
  const dir = tempDir();
  try {
    const first = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: "" } });
    const token = /generated an admin token \(stored in .*\): (\S+)/.exec(first.output())?.[1] ?? "";
    assert.match(token, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url");
    await exercise(first, token);
    assert.is(await stopServer(first), 0);
    const lines = first
      .output()
      .split("\n")
      .filter((line) => line.includes(token));
    assert.is(lines.length, 1, first.output());
    assert.match(lines[0], /^hcd: generated an admin token/);
    assert.is(occurrences(first.output(), token), 1);
    assert.is(statSync(join(dir.path, "admin-token")).mode & 0o777, 0o600, "the stored token is readable by its owner only");

    const second = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: "" } });
    await exercise(second, token);
    assert.is(await stopServer(second), 0);
    assert.is(occurrences(second.output(), token), 0, second.output());
  } finally {
    dir.remove();
  }
});

/**
 * Every secret setting, each set to a value that names its variable: the service tokens are found through
 * the kinds' own secret flags (a new secret setting of a kind is in this list without an edit here).
 */
function secretSettings(): Record<string, string> {
  const marked = (name: string) => `SECRET-${name}-value`;
  const services = settingSecrets(
    serviceSettingsOf((name) => (name.endsWith("_URL") || name === "MATRIX_HOMESERVER" ? undefined : marked(name))).settings,
  );
  const serviceNames = services.map((value) => /^SECRET-(.+)-value$/.exec(value)?.[1] ?? "");
  const env: Record<string, string> = Object.fromEntries(serviceNames.map((name) => [name, marked(name)]));
  return {
    ...env,
    MATRIX_HOMESERVER: "https://matrix.example.org",
    ADMIN_TOKEN: marked("ADMIN_TOKEN"),
    METRICS_TOKEN: marked("METRICS_TOKEN"),
    SMTP_URL: `smtp://mailer:${marked("SMTP_PASSWORD")}@127.0.0.1:9`,
    OIDC_ISSUER: "http://127.0.0.1:9/issuer",
    OIDC_CLIENT_ID: "hcd",
    OIDC_CLIENT_SECRET: marked("OIDC_CLIENT_SECRET"),
  };
}

for (const format of ["text", "json"]) {
  test(`no secret setting (service tokens included) is in the start log (LOG_FORMAT=${format})`, async () => {
    const dir = tempDir();
    const env = secretSettings();
    assert.ok(
      ["TELEGRAM_BOT_TOKEN", "TWILIO_AUTH", "MATRIX_ACCESS_TOKEN", "PUSHOVER_API_TOKEN", "TRELLO_APP_KEY"].every((name) => name in env),
      Object.keys(env).join(" "),
    );
    const server = await startServer({ dataDir: dir.path, env: { ...env, LOG_FORMAT: format } });
    try {
      assert.is(
        (await call(server.url, "GET", "/admin/v1/projects", { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } })).status,
        200,
      );
    } finally {
      assert.is(await stopServer(server), 0);
      dir.remove();
    }
    assert.match(server.output(), /listening on/, "the start line was captured");
    assert.match(server.output(), /telegramBotToken/, "the start line lists the service settings");
    const leaked = Object.values(env)
      .flatMap((value) => [...value.matchAll(/SECRET-[A-Z_]+-value/g)].map((m) => m[0]))
      .filter((secret) => server.output().includes(secret));
    assert.equal(leaked, [], server.output());
  });
}

test.run();
