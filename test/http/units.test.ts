// The pure parts of http/: config, input, present, auth, errors, badge signatures.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { HTTPError } from "h3";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MINUTE, SECOND } from "../../engine/model.ts";
import { fail, ok } from "../../engine/outcome.ts";
import type { Failure } from "../../engine/outcome.ts";
import { apiKeyOf, authorizeAdmin, RateLimiter } from "../../http/auth.ts";
import { badgeSignature } from "../../http/badge-urls.ts";
import { ConfigError, finishConfig, loadAdminToken, loadBadgeSecret, natsAccessOf, readSettings } from "../../app/config.ts";
import { withSecretFiles } from "../../app/secret-files.ts";
import { renderError, statusOf, unwrap } from "../../http/errors.ts";
import { checkRequestOf } from "../../http/input.ts";
import { channelsOf } from "../../http/field-input.ts";
import { checkQueryOf, flipQueryOf } from "../../http/query-input.ts";
import { parseJsonObject, readBodyBytes } from "../../http/body.ts";
import { retentionStartAt } from "../../http/admin-input.ts";
import { presentFlip, presentPing } from "../../http/present.ts";
import { isoMicros, isoSeconds } from "../../lib/iso-dates.ts";
import { tagsOf } from "../../engine/model.ts";
import { presentCheck } from "../../host/check-json.ts";
import { check, flip, ping, tempDir } from "../helpers.ts";

const enc = (text: string) => new TextEncoder().encode(text);

// ---- config ----

const REAL_SERVICES = {
  telegramBotToken: null,
  telegramApiUrl: "https://api.telegram.org",
  pagerdutyEventsUrl: "https://events.pagerduty.com/generic/2010-04-15/create_event.json",
  pushoverApiToken: null,
  pushoverApiUrl: "https://api.pushover.net",
  opsgenieApiUrl: null,
  matrixHomeserver: null,
  matrixAccessToken: null,
  pushbulletApiUrl: "https://api.pushbullet.com",
  shellEnabled: false,
  appriseEnabled: false,
  twilioAccount: null,
  twilioAuth: null,
  twilioFrom: null,
  twilioApiUrl: "https://api.twilio.com",
  githubApiUrl: "https://api.github.com",
  trelloAppKey: null,
  trelloApiUrl: "https://api.trello.com",
  twilioMessagingServiceSid: null,
  whatsappDownContentSid: null,
  whatsappUpContentSid: null,
  signalCliSocket: null,
  twilioUseWhatsapp: false,
};

test("config: defaults", () => {
  const s = readSettings({});
  assert.equal(
    { ...s, shards: 0 },
    {
      port: 8000,
      host: "127.0.0.1",
      dataDir: "./data",
      siteRoot: null,
      adminToken: null,
      badgeSecret: null,
      shards: 0,
      passwordHashN: 32768,
      smtpPort: null,
      emailDomain: "localhost",
      smtpUrl: null,
      defaultFromEmail: "hcd@localhost",
      allowPrivateIps: false,
      services: REAL_SERVICES,
      durability: "flush",
      clock: "real",
      apiRateLimit: 100,
      maxConnections: 4096,
      metricsToken: null,
      logFormat: "text",
      logLevel: "info",
      accessLog: false,
      trustedProxies: [],
      cluster: null,
      auditMaxAgeDays: 90,
      auditMaxEvents: 10_000,
      oidc: null,
    },
  );
  assert.ok(s.shards >= 1);
  assert.is(
    finishConfig(readSettings({ PORT: "0" }), { adminToken: "t", badgeSecret: "s", boundPort: 41234 }).siteRoot,
    "http://localhost:41234",
  );
});

test("config: the API rate limit is off by default under CLOCK=virtual, and can still be set there", () => {
  assert.is(readSettings({ CLOCK: "virtual" }).apiRateLimit, 0);
  assert.is(readSettings({ CLOCK: "virtual", API_RATE_LIMIT: "100" }).apiRateLimit, 100);
  assert.is(readSettings({ CLOCK: "real" }).apiRateLimit, 100);
});

test("config: every variable is read", () => {
  const s = readSettings({
    PORT: "9000",
    HOST: "0.0.0.0",
    DATA_DIR: "/tmp/x",
    SITE_ROOT: "https://hc.example.com/",
    ADMIN_TOKEN: "0123456789abcdef",
    SHARDS: "3",
    PASSWORD_HASH_N: "4096",
    SMTP_PORT: "2525",
    EMAIL_DOMAIN: "hc.example.com",
    SMTP_URL: "smtp://u:p@mail:587",
    DEFAULT_FROM_EMAIL: "alerts@hc.example.com",
    INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
    DURABILITY: "commit",
    CLOCK: "virtual",
    API_RATE_LIMIT: "0",
    MAX_CONNECTIONS: "500",
    METRICS_TOKEN: "scraper-token",
    LOG_FORMAT: "JSON",
    LOG_LEVEL: "warn",
    LOG_ACCESS: "yes",
    TRUSTED_PROXIES: "10.0.0.0/8, ::1",
    AUDIT_MAX_AGE_DAYS: "30",
    AUDIT_MAX_EVENTS: "500",
    OIDC_ISSUER: "https://login.example.com/",
    OIDC_CLIENT_ID: "hcd",
    OIDC_CLIENT_SECRET: "s3cret",
    OIDC_DEFAULT_ROLE: "readonly:0b5e-project",
    BADGE_SECRET: "b".repeat(32),
  });
  assert.equal(s, {
    port: 9000,
    host: "0.0.0.0",
    dataDir: "/tmp/x",
    siteRoot: "https://hc.example.com",
    adminToken: "0123456789abcdef",
    badgeSecret: "b".repeat(32),
    shards: 3,
    passwordHashN: 4096,
    smtpPort: 2525,
    emailDomain: "hc.example.com",
    smtpUrl: "smtp://u:p@mail:587",
    defaultFromEmail: "alerts@hc.example.com",
    allowPrivateIps: true,
    services: REAL_SERVICES,
    durability: "commit",
    clock: "virtual",
    apiRateLimit: 0,
    maxConnections: 500,
    metricsToken: "scraper-token",
    logFormat: "json",
    logLevel: "warn",
    accessLog: true,
    trustedProxies: ["10.0.0.0/8", "::1"],
    cluster: null,
    auditMaxAgeDays: 30,
    auditMaxEvents: 500,
    oidc: {
      issuer: "https://login.example.com/",
      clientId: "hcd",
      clientSecret: "s3cret",
      newUsers: { grant: { role: "readonly", projectId: "0b5e-project" } },
    },
  });
});

test("config: OIDC_DEFAULT_ROLE is none or <role>:<project id>, only with the three OIDC settings; unset, SSO makes no users", () => {
  const sso = { OIDC_ISSUER: "https://login.example.com/", OIDC_CLIENT_ID: "hcd", OIDC_CLIENT_SECRET: "s3cret" };
  assert.is(readSettings(sso).oidc?.newUsers, null);
  assert.equal(readSettings({ ...sso, OIDC_DEFAULT_ROLE: "none" }).oidc?.newUsers, { grant: null });
  assert.equal(readSettings({ ...sso, OIDC_DEFAULT_ROLE: "owner:p1" }).oidc?.newUsers, { grant: { role: "owner", projectId: "p1" } });
  for (const bad of ["member", "admin:p1", "member:", "member:a b"]) {
    assert.throws(
      () => readSettings({ ...sso, OIDC_DEFAULT_ROLE: bad }),
      new RegExp(`OIDC_DEFAULT_ROLE=${bad}: expected none or <role>:<project id>`),
      bad,
    );
  }
  assert.throws(() => readSettings({ OIDC_DEFAULT_ROLE: "none" }), /OIDC_DEFAULT_ROLE: only with OIDC_ISSUER/);
});

test("config: the notification kinds' endpoints and tokens are read, URLs without a trailing slash; a bad URL is named", () => {
  assert.equal(
    readSettings({
      TELEGRAM_BOT_TOKEN: "1:tg",
      TELEGRAM_API_URL: "http://proxy:8080/tg/",
      PAGERDUTY_EVENTS_URL: "http://proxy/pd",
      PUSHOVER_API_TOKEN: "po",
      PUSHOVER_API_URL: "http://proxy/po",
      OPSGENIE_API_URL: "http://proxy/og",
      MATRIX_HOMESERVER: "https://matrix.example.org/",
      MATRIX_ACCESS_TOKEN: "mx",
      PUSHBULLET_API_URL: "http://proxy/pb",
      SHELL_ENABLED: "yes",
      TWILIO_ACCOUNT: "AC1",
      TWILIO_AUTH: "tw",
      TWILIO_FROM: "+1555",
      TWILIO_API_URL: "http://proxy/tw/",
      GITHUB_API_URL: "http://proxy/gh",
      TRELLO_APP_KEY: "tk",
      TRELLO_API_URL: "http://proxy/tr",
      TWILIO_USE_WHATSAPP: "true",
      TWILIO_MESSAGING_SERVICE_SID: "MG1",
      WHATSAPP_DOWN_CONTENT_SID: "HX1",
      WHATSAPP_UP_CONTENT_SID: "HX2",
      SIGNAL_CLI_SOCKET: "/run/signal-cli/socket",
    }).services,
    {
      telegramBotToken: "1:tg",
      telegramApiUrl: "http://proxy:8080/tg",
      pagerdutyEventsUrl: "http://proxy/pd",
      pushoverApiToken: "po",
      pushoverApiUrl: "http://proxy/po",
      opsgenieApiUrl: "http://proxy/og",
      matrixHomeserver: "https://matrix.example.org",
      matrixAccessToken: "mx",
      pushbulletApiUrl: "http://proxy/pb",
      shellEnabled: true,
      appriseEnabled: false,
      twilioAccount: "AC1",
      twilioAuth: "tw",
      twilioFrom: "+1555",
      twilioApiUrl: "http://proxy/tw",
      githubApiUrl: "http://proxy/gh",
      trelloAppKey: "tk",
      trelloApiUrl: "http://proxy/tr",
      twilioMessagingServiceSid: "MG1",
      whatsappDownContentSid: "HX1",
      whatsappUpContentSid: "HX2",
      signalCliSocket: "/run/signal-cli/socket",
      twilioUseWhatsapp: true,
    },
  );
  assert.throws(() => readSettings({ SHELL_ENABLED: "maybe" }), /SHELL_ENABLED: expected true or false/);
  assert.throws(() => readSettings({ TELEGRAM_API_URL: "api.telegram.org" }), /TELEGRAM_API_URL: expected an http\(s\) URL/);
});

test("config: NATS_URL turns on cluster mode, with NODE_ID and the shared settings", () => {
  const s = readSettings({
    NATS_URL: "nats://10.0.0.1:4222, nats://10.0.0.2:4222",
    NODE_ID: "node-2",
    ADMIN_TOKEN: "0123456789abcdef",
    CLUSTER_PARTITIONS: "16",
    CLUSTER_REPLICAS: "1",
    CLUSTER_SNAPSHOT_EVERY: "500",
  });
  assert.equal(s.cluster, {
    natsUrls: ["nats://10.0.0.1:4222", "nats://10.0.0.2:4222"],
    natsUser: null,
    natsPassword: null,
    natsToken: null,
    natsCreds: null,
    natsTls: false,
    natsTlsCa: null,
    nodeId: "node-2",
    partitions: 16,
    replicas: 1,
    snapshotEvery: 500,
  });
  assert.is(readSettings({ NATS_URL: "nats://a:4222", ADMIN_TOKEN: "0123456789abcdef" }).cluster?.snapshotEvery, 10_000);
  assert.throws(
    () => readSettings({ NATS_URL: "nats://a:4222", ADMIN_TOKEN: "0123456789abcdef", CLUSTER_SNAPSHOT_EVERY: "10" }),
    /CLUSTER_SNAPSHOT_EVERY/,
  );
  assert.equal(
    readSettings({ NATS_URL: "nats://a:4222", ADMIN_TOKEN: "0123456789abcdef" }).cluster?.partitions,
    null,
    "unset: the cluster's stored count is taken (cluster/partition-count.ts)",
  );
  assert.throws(() => readSettings({ NATS_URL: "nats://a:4222" }), /ADMIN_TOKEN: required with NATS_URL/);
  assert.throws(() => readSettings({ NATS_URL: "http://a", ADMIN_TOKEN: "0123456789abcdef" }), /NATS_URL: expected/);
  assert.throws(() => readSettings({ NATS_URL: "nats://a:4222", ADMIN_TOKEN: "0123456789abcdef", NODE_ID: "a b" }), /NODE_ID=a b/);
  assert.throws(
    () => readSettings({ NATS_URL: "nats://a:4222", ADMIN_TOKEN: "0123456789abcdef", CLOCK: "virtual" }),
    /CLOCK=virtual: not available/,
  );
});

test("config: NATS credentials leave the URLs (decoded), a token, a credentials file, TLS and its CA", () => {
  const token = { ADMIN_TOKEN: "0123456789abcdef" };
  const withPassword = readSettings({
    ...token,
    NATS_URL: "tls://hcd:p%40ss%3Aw%2Frd@[::1]:4222,tls://hcd:p%40ss%3Aw%2Frd@nats-2",
    NATS_TLS_CA: "/etc/hcd/ca.pem",
  }).cluster!;
  assert.equal(
    [withPassword.natsUrls, withPassword.natsUser, withPassword.natsPassword, withPassword.natsTls, withPassword.natsTlsCa],
    [["tls://[::1]:4222", "tls://nats-2"], "hcd", "p@ss:w/rd", true, "/etc/hcd/ca.pem"],
  );
  assert.equal(natsAccessOf(withPassword), {
    urls: ["tls://[::1]:4222", "tls://nats-2"],
    credentials: { kind: "password", user: "hcd", password: "p@ss:w/rd" },
    tls: { caFile: "/etc/hcd/ca.pem" },
  });
  const withToken = readSettings({ ...token, NATS_URL: "nats://t0ken@a:4222,nats://b:4222" }).cluster!;
  assert.equal([withToken.natsUrls, withToken.natsUser, withToken.natsToken], [["nats://a:4222", "nats://b:4222"], null, "t0ken"]);
  assert.equal(natsAccessOf(withToken).credentials, { kind: "token", token: "t0ken" });
  const withCreds = readSettings({ ...token, NATS_URL: "nats://a:4222", NATS_CREDS: "/etc/hcd/node.creds" }).cluster!;
  assert.equal(natsAccessOf(withCreds), {
    urls: ["nats://a:4222"],
    credentials: { kind: "creds", file: "/etc/hcd/node.creds" },
    tls: null,
  });
  const refused: [Record<string, string>, RegExp][] = [
    [{ NATS_URL: "nats://u:one@a:4222,nats://u:two@b:4222" }, /NATS_URL: every URL that carries credentials must carry the same/],
    [{ NATS_URL: "tls://a:4222,nats://b:4222" }, /NATS_URL: either every URL is tls:\/\/ or none/],
    [{ NATS_URL: "nats://a:4222", NATS_TLS_CA: "/ca.pem" }, /NATS_TLS_CA: only with tls:\/\/ URLs/],
    [{ NATS_URL: "nats://u:p@a:4222", NATS_CREDS: "/node.creds" }, /NATS_CREDS: not with credentials in NATS_URL/],
    [{ NATS_URL: "nats://u:50%@a:4222" }, /NATS_URL: the credentials are not valid percent-encoding/],
    [{ NATS_URL: "nats://u:p@a:4222/path" }, /NATS_URL: expected/],
    [{ NATS_CREDS: "/node.creds" }, /NATS_CREDS: only with NATS_URL/],
  ];
  for (const [env, expected] of refused) {
    const error = (() => {
      try {
        readSettings({ ...token, ...env });
        return null;
      } catch (e) {
        return e as Error;
      }
    })();
    assert.instance(error, ConfigError, JSON.stringify(env));
    assert.match(error!.message, expected);
    for (const secret of ["u:one", "u:two", "u:50%", "u:p@"])
      assert.not.ok(error!.message.includes(secret), `no credentials in: ${error!.message}`);
  }
});

test("config: PASSWORD_HASH_N is OWASP's 32768 unless set, a power of two from 1024 to 1048576", () => {
  assert.is(readSettings({}).passwordHashN, 32768);
  assert.is(readSettings({ PASSWORD_HASH_N: "1024" }).passwordHashN, 1024);
  for (const raw of ["1000", "512", "2097152", "cheap"])
    assert.throws(
      () => readSettings({ PASSWORD_HASH_N: raw }),
      (e: Error) => e.message.includes(`PASSWORD_HASH_N=`),
      raw,
    );
});

test("config: invalid values fail with one message naming each of them", () => {
  try {
    readSettings({
      PORT: "http",
      SHARDS: "0",
      DURABILITY: "maybe",
      CLOCK: "fast",
      INTEGRATIONS_ALLOW_PRIVATE_IPS: "sure",
      SITE_ROOT: "localhost",
      API_RATE_LIMIT: "-1",
      LOG_FORMAT: "xml",
      LOG_LEVEL: "loud",
      LOG_ACCESS: "maybe",
    });
    assert.unreachable("should have thrown");
  } catch (error) {
    assert.instance(error, ConfigError);
    const message = (error as Error).message;
    for (const name of [
      "PORT",
      "SHARDS",
      "DURABILITY",
      "CLOCK",
      "INTEGRATIONS_ALLOW_PRIVATE_IPS",
      "SITE_ROOT",
      "API_RATE_LIMIT",
      "LOG_FORMAT",
      "LOG_LEVEL",
      "LOG_ACCESS",
    ]) {
      assert.ok(message.includes(name), `${name} in ${message}`);
    }
  }
});

test("config: the admin token is generated once, stored, and read back", () => {
  const dir = tempDir();
  try {
    const settings = readSettings({ DATA_DIR: `${dir.path}/nested` });
    const first = loadAdminToken(settings);
    assert.ok(first.generated);
    assert.ok(first.token.length >= 32);
    assert.equal(loadAdminToken(settings), { token: first.token, generated: false });
    assert.equal(loadAdminToken(readSettings({ DATA_DIR: dir.path, ADMIN_TOKEN: "from-the-environment" })), {
      token: "from-the-environment",
      generated: false,
    });
  } finally {
    dir.remove();
  }
});

test("config: the badge secret is generated once into DATA_DIR (owner-only), read back, and not the admin token", () => {
  const dir = tempDir();
  try {
    const settings = readSettings({ DATA_DIR: `${dir.path}/nested` });
    const secret = loadBadgeSecret(settings);
    assert.ok(secret.length >= 32);
    assert.is(readFileSync(`${dir.path}/nested/badge-secret`, "utf8").trim(), secret);
    assert.is(statSync(`${dir.path}/nested/badge-secret`).mode & 0o777, 0o600);
    assert.is(loadBadgeSecret(settings), secret, "kept across restarts");
    assert.is.not(loadAdminToken(settings).token, secret);
    const other = tempDir();
    try {
      assert.is.not(loadBadgeSecret(readSettings({ DATA_DIR: other.path })), secret, "each installation has its own");
    } finally {
      other.remove();
    }
  } finally {
    dir.remove();
  }
});

test("config: BADGE_SECRET, when set, signs badges instead of DATA_DIR/badge-secret (none is made); shorter than 32 characters is refused", () => {
  const dir = tempDir();
  try {
    assert.is(loadBadgeSecret(readSettings({ DATA_DIR: dir.path, BADGE_SECRET: "s".repeat(40) })), "s".repeat(40));
    assert.not.ok(existsSync(join(dir.path, "badge-secret")));
    assert.throws(() => readSettings({ BADGE_SECRET: "short" }), /BADGE_SECRET: expected at least 32 characters/);
  } finally {
    dir.remove();
  }
});

// CONTRACT.md "Container image and compose files": every secret setting, each notification service's token
// and NATS_URL (it may carry a password) also as <NAME>_FILE
const FROM_FILES: Record<string, [value: string, read: (s: ReturnType<typeof readSettings>) => unknown]> = {
  ADMIN_TOKEN: ["admin-token-from-a-file-0123456789", (s) => s.adminToken],
  SMTP_URL: ["smtp://hcd:p@ss@mail.example.com:587", (s) => s.smtpUrl],
  METRICS_TOKEN: ["scraper-token-from-a-file", (s) => s.metricsToken],
  OIDC_CLIENT_SECRET: ["oidc-secret-from-a-file", (s) => s.oidc?.clientSecret],
  BADGE_SECRET: ["badge-secret-from-a-file-0123456789abcdef", (s) => s.badgeSecret],
  NATS_URL: [
    "nats://hcd:nats-pass@nats-1:4222",
    (s) => (s.cluster?.natsPassword === "nats-pass" ? "nats://hcd:nats-pass@nats-1:4222" : s.cluster),
  ],
  TELEGRAM_BOT_TOKEN: ["123:telegram-from-a-file", (s) => s.services.telegramBotToken],
  PUSHOVER_API_TOKEN: ["pushover-from-a-file", (s) => s.services.pushoverApiToken],
  MATRIX_ACCESS_TOKEN: ["matrix-from-a-file", (s) => s.services.matrixAccessToken],
  TWILIO_AUTH: ["twilio-from-a-file", (s) => s.services.twilioAuth],
  TRELLO_APP_KEY: ["trello-from-a-file", (s) => s.services.trelloAppKey],
};

test("config: each secret setting read from <NAME>_FILE, its trailing line ending cut (\\n, \\r\\n, several)", () => {
  const dir = tempDir();
  try {
    const env: Record<string, string> = { OIDC_ISSUER: "https://login.example.com", OIDC_CLIENT_ID: "hcd" };
    const endings = ["\n", "\r\n", "\n\n", ""];
    Object.entries(FROM_FILES).forEach(([name, [value]], i) => {
      writeFileSync(join(dir.path, name), value + endings[i % endings.length]);
      env[`${name}_FILE`] = join(dir.path, name);
    });
    const resolved = withSecretFiles(env);
    for (const [name, [value]] of Object.entries(FROM_FILES)) assert.is(resolved[name], value, name);
    const settings = readSettings(resolved);
    for (const [name, [value, read]] of Object.entries(FROM_FILES)) assert.is(read(settings), value, name);
  } finally {
    dir.remove();
  }
});

test("config: <NAME> and <NAME>_FILE both set, a file that can't be read, an empty file: one error naming each, never a value", () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, "empty"), "\n");
    writeFileSync(join(dir.path, "token"), "file-value-0123456789");
    mkdirSync(join(dir.path, "a-directory"));
    const attempt = () =>
      withSecretFiles({
        ADMIN_TOKEN: "env-value-0123456789",
        ADMIN_TOKEN_FILE: join(dir.path, "token"),
        SMTP_URL_FILE: join(dir.path, "missing"),
        METRICS_TOKEN_FILE: join(dir.path, "a-directory"),
        TWILIO_AUTH_FILE: join(dir.path, "empty"),
      });
    assert.throws(attempt, (error: Error) => error instanceof ConfigError);
    const message = (() => {
      try {
        attempt();
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    assert.match(message, /ADMIN_TOKEN and ADMIN_TOKEN_FILE are both set/);
    assert.match(message, /SMTP_URL_FILE=\S+missing: cannot read it \(ENOENT\)/);
    assert.match(message, /METRICS_TOKEN_FILE=\S+a-directory: cannot read it \(EISDIR\)/);
    assert.match(message, /TWILIO_AUTH_FILE=\S+empty: the file is empty/);
    assert.not.match(message, /env-value|file-value/);
    // a setting that is not a secret has no _FILE form: it stays an unknown variable, read by nothing
    assert.is(withSecretFiles({ PORT_FILE: join(dir.path, "token") }).PORT, undefined);
    assert.is(readSettings(withSecretFiles({ ADMIN_TOKEN: "only-the-variable-0123" })).adminToken, "only-the-variable-0123");
  } finally {
    dir.remove();
  }
});

// ---- input: bodies ----

test("input: bodies are JSON objects; empty is {}; null only where allowed", () => {
  assert.equal(parseJsonObject(enc("")), ok({}));
  assert.equal(parseJsonObject(enc('{"a":1}')), ok({ a: 1 }));
  assert.equal(parseJsonObject(enc("null"), { nullAsEmpty: true }), ok({}));
  for (const text of ["null", "[]", "1", '"s"', "{", " "]) assert.not.ok(parseJsonObject(enc(text)).ok, text);
  assert.not.ok(parseJsonObject(new Uint8Array([0x22, 0xff, 0x22])).ok, "invalid UTF-8");
});

test("input: bodies over the limit are refused with 413", async () => {
  const big = new Request("http://x/", { method: "POST", body: "x".repeat(100) });
  try {
    await readBodyBytes(big, 50);
    assert.unreachable();
  } catch (error) {
    assert.ok(HTTPError.isError(error));
    assert.is(error.status, 413);
  }
  assert.is((await readBodyBytes(new Request("http://x/", { method: "POST", body: "abc" }), 50)).byteLength, 3);
});

// ---- input: create/update ----

test("input: seconds become ms, and only the fields sent appear in the spec", () => {
  const result = checkRequestOf({ name: "n", timeout: 60, grace: 31536000, manual_resume: false, methods: "POST", api_key: "k" }, null);
  assert.equal(
    result,
    ok({ spec: { name: "n", timeoutMs: 60 * SECOND, graceMs: 31536000 * SECOND, manualResume: false, methods: "POST" }, unique: [] }),
  );
  assert.equal(checkRequestOf({}, null), ok({ spec: {}, unique: [] }));
});

test("input: unique is a de-duplicated list of allowed names", () => {
  assert.equal(
    checkRequestOf({ unique: ["name", "slug", "name", "tags", "timeout", "grace"] }, null),
    ok({ spec: {}, unique: ["name", "slug", "tags", "timeout", "grace"] }),
  );
  assert.equal(checkRequestOf({ unique: [] }, null), ok({ spec: {}, unique: [] }));
});

test("input: deprecated subject fields map onto the keywords, starting from the stored ones", () => {
  const stored = { successKw: "", failureKw: "F" };
  assert.equal(checkRequestOf({ subject: "" }, stored), ok({ spec: { successKw: "", filterSubject: true }, unique: [] }));
  assert.equal(
    checkRequestOf({ subject: "", subject_fail: "" }, stored),
    ok({ spec: { successKw: "", failureKw: "", filterSubject: false }, unique: [] }),
  );
  assert.equal(
    checkRequestOf({ subject: "S", success_kw: "X", filter_subject: false }, null),
    ok({ spec: { successKw: "X", filterSubject: false }, unique: [] }),
  );
});

test("input: the first invalid field decides the error, and nothing is returned for a partly valid request", () => {
  const result = checkRequestOf({ name: "fine", grace: 10, timeout: "x" }, null);
  assert.equal(result, fail({ code: "invalid", field: "grace", reason: "is too small" }));
});

test('input: channels are "*", "" or a comma list without trimming; empty items are refused', () => {
  assert.equal(channelsOf("*"), ok({ all: true }));
  assert.equal(channelsOf(""), ok({ refs: [] }));
  assert.equal(channelsOf("a, b,a"), ok({ refs: ["a", " b"] }));
  assert.not.ok(channelsOf("a,").ok);
  assert.not.ok(channelsOf(",").ok);
});

test("input: check list query", () => {
  assert.equal(checkQueryOf(new URLSearchParams("slug=x&tag=a&tag=b&tag=a")), { slug: "x", tags: ["a", "b"] });
  assert.equal(checkQueryOf(new URLSearchParams("slug=")), { tags: [] });
});

test("input: flip filters follow the reference's quirks", () => {
  const at = 1_000_000 * SECOND;
  const rows: [string, unknown][] = [
    ["", ok({})],
    ["start=10", ok({ fromAt: 10 * SECOND })],
    ["start=+10", ok({ fromAt: 10 * SECOND })],
    ["start= 1_0 ", ok({ fromAt: 10 * SECOND })],
    ["end=0", ok({ toAt: 0 })],
    ["seconds=60", ok({ fromAt: at - MINUTE })],
    ["seconds=60.0", ok({ fromAt: at - MINUTE })],
    ["seconds=0", ok({})],
    ["seconds=", ok({})],
    ["start=999999&seconds=60", ok({ fromAt: 999_999 * SECOND })], // both apply: the later bound wins
    ["start=999990&seconds=1", ok({ fromAt: at - SECOND })],
    ["start=10000000000", ok({ fromAt: 10_000_000_000 * SECOND })],
  ];
  for (const [query, want] of rows) assert.equal(flipQueryOf(new URLSearchParams(query), at), want, query);
  for (const query of [
    "start=",
    "end=",
    "start=x",
    "start=1.0",
    "start=-1",
    "end=10000000001",
    "seconds=1.5",
    "seconds=-1",
    "seconds=31536001",
    "seconds=a",
  ]) {
    assert.not.ok(flipQueryOf(new URLSearchParams(query), at).ok, query);
  }
});

test("input: retention keeps the current month and the two before it", () => {
  assert.is(retentionStartAt(Date.UTC(2026, 0, 15)), Date.UTC(2025, 10, 1));
  assert.is(retentionStartAt(Date.UTC(2026, 2, 31, 23, 59)), Date.UTC(2026, 0, 1));
});

// ---- present ----

test("present: timestamps to the second with +00:00; ping dates with microseconds only when non-zero", () => {
  assert.is(isoSeconds(null), null);
  assert.is(isoSeconds(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), "2026-01-02T03:04:05+00:00");
  assert.is(isoMicros(Date.UTC(2026, 0, 2, 3, 4, 5, 0)), "2026-01-02T03:04:05+00:00");
  assert.is(isoMicros(Date.UTC(2026, 0, 2, 3, 4, 5, 7)), "2026-01-02T03:04:05.007000+00:00");
});

test("present: a check's fields, unique_key, last_duration and the cron form", () => {
  const uuid = "6b2bd2fe-7b43-4a8c-a2d2-3f0e0d7b5a44";
  const base = check({
    uuid,
    badgeKey: "bk",
    status: "up",
    nPings: 3,
    lastPingAt: 0,
    lastDurationMs: 2_500,
    graceMs: 90 * SECOND,
    timeoutMs: 120 * SECOND,
  });
  const ro = presentCheck(base, { at: 1, siteRoot: "https://s", readonly: true });
  // unique_key: sha1 of "6b2bd2fe7b434a8c" (the reference's Check.unique_key)
  assert.is(ro.unique_key, "314d563989883c3f3f15b47cdacf62efd03e1b71");
  assert.equal(
    [ro.uuid, ro.ping_url, ro.channels, ro.last_duration, ro.grace, ro.timeout, ro.badge_url],
    [undefined, undefined, undefined, 2, 90, 120, "https://s/b/2/bk.svg"],
  );
  const cron = presentCheck(
    { ...base, kind: "cron", schedule: "0 * * * *", tz: "Europe/Riga", lastDurationMs: 0, channels: ["b", "a"] },
    { at: 1, siteRoot: "https://s", readonly: false },
  );
  assert.equal(
    [cron.timeout, cron.schedule, cron.tz, cron.last_duration, cron.channels],
    [undefined, "0 * * * *", "Europe/Riga", undefined, "a,b"],
  );
  assert.is(cron.ping_url, `https://s/ping/${uuid}`);
});

test("present: subject fields echo the keywords only when filter_subject is on", () => {
  const on = presentCheck(check({ successKw: "S", failureKw: "F", filterSubject: true }), { at: 0, siteRoot: "", readonly: false });
  const off = presentCheck(check({ successKw: "S", failureKw: "F" }), { at: 0, siteRoot: "", readonly: false });
  assert.equal([on.subject, on.subject_fail, off.subject, off.subject_fail], ["S", "F", "", ""]);
});

test("present: pings carry duration (2 decimals) only on matched completions, and a body_url only with a body", () => {
  const opts = { checkUuid: "u", siteRoot: "https://s", durationMs: 61_237 };
  assert.is(presentPing(ping({ kind: "success" }), opts).duration, 61.24);
  assert.is(presentPing(ping({ kind: "fail" }), opts).duration, 61.24);
  assert.is(presentPing(ping({ kind: "start" }), opts).duration, undefined);
  assert.is(presentPing(ping({ kind: "success" }), { ...opts, durationMs: null }).duration, undefined);
  assert.is(presentPing(ping({ n: 7, bodySize: 3 }), opts).body_url, "https://s/api/v3/checks/u/pings/7/body");
  assert.is(presentPing(ping({ bodySize: 0 }), opts).body_url, null);
});

test("present: flips are up only for changes to up", () => {
  assert.equal(presentFlip(flip({ at: 0, to: "up" })), { timestamp: "1970-01-01T00:00:00+00:00", up: 1 });
  for (const to of ["down", "paused", "new"] as const) assert.is(presentFlip(flip({ to })).up, 0);
});

test("present: tags split on single spaces, trimmed, empties dropped", () => {
  assert.equal(tagsOf(" a  b\tc "), ["a", "b\tc"]);
  assert.equal(tagsOf(""), []);
});

// ---- auth ----

test("auth: the header wins when present, even empty; else api_key of the body", () => {
  const h = (init: Record<string, string>) => new Headers(init);
  assert.is(apiKeyOf(h({ "x-api-key": "" }), { api_key: "body" }), "");
  assert.is(apiKeyOf(h({ "X-Api-Key": "head" }), { api_key: "body" }), "head");
  assert.is(apiKeyOf(h({}), { api_key: "body" }), "body");
  assert.is(apiKeyOf(h({}), { api_key: 5 }), "5");
  assert.is(apiKeyOf(h({}), {}), null);
  assert.is(apiKeyOf(h({}), null), null);
});

test("auth: the rate limiter counts per key per clock minute; 0 means off", () => {
  const limiter = new RateLimiter(2);
  assert.equal([limiter.take("a", 0), limiter.take("a", 1), limiter.take("a", 2), limiter.take("b", 3)], [true, true, false, true]);
  assert.is(limiter.retryAfterSeconds(30 * SECOND), 30);
  assert.ok(limiter.take("a", MINUTE));
  const off = new RateLimiter(0);
  for (let i = 0; i < 1000; i++) assert.ok(off.take("a", 0));
});

test("auth: the admin token must match exactly", () => {
  const h = (authorization: string) => new Headers({ authorization });
  authorizeAdmin(h("Bearer secret-token"), "secret-token");
  authorizeAdmin(h("bearer secret-token"), "secret-token");
  for (const header of ["Bearer secret-toke", "Bearer secret-token2", "secret-token", "Bearer ", ""]) {
    assert.throws(
      () => authorizeAdmin(h(header), "secret-token"),
      (e: unknown) => HTTPError.isError(e) && e.status === 401,
      header,
    );
  }
});

// ---- errors ----

test("errors: every failure code has its status", () => {
  const rows: [Failure, number][] = [
    [{ code: "unauthorized" }, 401],
    [{ code: "forbidden" }, 403],
    [{ code: "check_limit" }, 403],
    [{ code: "not_found" }, 404],
    [{ code: "not_paused" }, 409],
    [{ code: "ambiguous_slug" }, 409],
    [{ code: "invalid", field: "f", reason: "r" }, 400],
  ];
  for (const [failure, status] of rows) assert.is(statusOf(failure), status, failure.code);
  assert.is(unwrap(ok(5)), 5);
  assert.throws(
    () => unwrap(fail({ code: "not_paused" })),
    (e: unknown) => HTTPError.isError(e) && e.status === 409,
  );
});

test("errors: unexpected errors become 500 internal error and are reported; HTTP errors keep their message", async () => {
  const reported: unknown[] = [];
  const boom = renderError(new Error("secret detail"), { report: (e) => reported.push(e) });
  assert.is(boom.status, 500);
  assert.equal(JSON.parse(boom.body as string), { error: "internal error" });
  assert.is(boom.headers.get("content-type"), "application/json");
  assert.is(reported.length, 1);
  const known = renderError(new HTTPError({ status: 409, message: "check is not paused" }), {
    report: (e) => reported.push(e),
    headers: { "x-a": "1" },
  });
  assert.equal([known.status, JSON.parse(known.body as string), known.headers.get("x-a")], [409, { error: "check is not paused" }, "1"]);
  assert.is(reported.length, 1);
});

// ---- badges ----

test("badge signatures: 8 URL-safe characters per secret, key and tag; -2 means two states", () => {
  const sig = badgeSignature("secret", "key", "prod");
  assert.match(sig, /^[A-Za-z0-9_-]{8}$/);
  assert.is.not(sig, badgeSignature("secret", "key", "dev"));
  assert.is.not(sig, badgeSignature("secret", "other", "prod"));
  assert.is.not(sig, badgeSignature("another secret", "key", "prod"));
});

test.run();
