// An app on a fresh in-process pool with a virtual clock, for the API (any version) and /admin tests.
// Every unexpected error the app reports is collected; `withApi` fails the test when there is any.
import { createServer as createHttpServer } from "node:http";
import { toNodeHandler } from "h3/node";
import { readMail } from "../../mail/message.ts";
import { sendTestNotification } from "../../notify/test-notification.ts";
import type { SendTestNotification } from "../../http/deps.ts";
import * as assert from "uvu/assert";
import type { Test } from "uvu";
import type { ApiVersion } from "../../host/api-versions.ts";
import { API_VERSIONS } from "../../host/api-versions.ts";
import { H3 } from "h3";
import type { HTTPError } from "h3";
import type { Clock } from "../../host/clock.ts";
import { VirtualClock } from "../../host/clock.ts";
import type { PingCommand, Pool } from "../../host/pool-api.ts";
import { createInProcessPool } from "../../app/pools.ts";
import type { Millis, Project } from "../../engine/model.ts";
import type { AppDeps } from "../../http/deps.ts";
import { createApp } from "../../http/app.ts";
import type { Config } from "../../app/config.ts";
import { finishConfig, readSettings } from "../../app/config.ts";
import { tempDir } from "../helpers.ts";
import { serviceKindsOf } from "../../notify/kinds/service.ts";

export const T0: Millis = Date.UTC(2026, 0, 15, 12, 0, 0); // a Thursday, mid-month
export const SITE = "http://hc.test";
export const ADMIN_TOKEN = "admin-token-for-tests-0123456789";
export const BADGE_SECRET = "badge-secret-for-tests-0123456789";

export type Answer = { status: number; headers: Headers; text: string; json: unknown };
export type Call = { key?: string | null; body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> };

export type Api = {
  app: H3;
  pool: Pool;
  clock: VirtualClock;
  config: Config;
  project: Project;
  /** The API version the test speaks (ApiOptions.version, default 3), and its path root: "/api/v3". */
  version: ApiVersion;
  root: string;
  /** Sends a request; `key` (default the read-write key, null = none) goes in X-Api-Key, `body` as JSON. */
  call(method: string, path: string, call?: Call): Promise<Answer>;
  /** Sends an admin request with the bearer token. */
  admin(method: string, path: string, body?: unknown): Promise<Answer>;
  /** Creates a check through the API; returns its JSON. */
  create(body?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Sends a ping straight to the pool. */
  ping(uuid: string, overrides?: Partial<PingCommand>): Promise<void>;
  newProject(overrides?: Partial<{ checkLimit: number; name: string }>): Promise<Project>;
  unexpected: unknown[];
};

export type ApiOptions = {
  apiRateLimit?: number;
  rateClock?: Clock;
  clock?: "virtual" | "real";
  pool?: (pool: Pool) => Pool;
  /** The dashboard's session and sign-in clock (default: the real clock). */
  sessionClock?: Clock;
  /** Number of shards of the in-process pool (default 2). */
  shards?: number;
  /** Extra environment for the app's config (e.g. SMTP_PORT, EMAIL_DOMAIN). */
  env?: Record<string, string>;
  /** The API version of `api.root` and `api.create` (default 3). */
  version?: ApiVersion;
  /** How the dashboard mails a user (as app/main.ts makes it from SMTP_URL); default none, as without SMTP_URL. */
  sendUserMail?: AppDeps["sendUserMail"];
};

/** Runs `body` against a fresh app and store; fails on any unexpected (500) error the app reported. */
export async function withApi(body: (api: Api) => Promise<void>, options: ApiOptions = {}): Promise<void> {
  const dir = tempDir();
  const realPool = await createInProcessPool({
    dataDir: dir.path,
    shards: options.shards ?? 2,
    durability: "commit",
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: SITE, allowPrivateIps: true, smtpUrl: null },
  });
  const pool = options.pool ? options.pool(realPool) : realPool;
  try {
    const clock = new VirtualClock(T0);
    const settings = readSettings({
      DATA_DIR: dir.path,
      SITE_ROOT: SITE,
      API_RATE_LIMIT: String(options.apiRateLimit ?? 0),
      ...options.env,
    });
    const config = finishConfig(settings, { adminToken: ADMIN_TOKEN, badgeSecret: BADGE_SECRET, boundPort: 8000 });
    const unexpected: unknown[] = [];
    const appClock: Clock = options.clock === "real" ? { kind: "real", now: () => clock.now() } : clock;
    const app = createApp(
      {
        pool,
        clock: appClock,
        config,
        readMail,
        sendTestNotification: testNotifierOf(config, pool),
        serviceKinds: serviceKindsOf(config.services),
        sendUserMail: options.sendUserMail,
      },
      { report: (e) => unexpected.push(e), rateClock: options.rateClock ?? clock, sessionClock: options.sessionClock },
    );
    const newProject = (overrides: Partial<{ checkLimit: number; name: string }> = {}) =>
      pool.createProject(
        { name: overrides.name ?? "test", checkLimit: overrides.checkLimit ?? 20, pingLogLimit: 100, pingBodyLimit: 10_000 },
        clock.now(),
      );
    const project = await newProject();
    const call = async (method: string, path: string, c: Call = {}): Promise<Answer> => {
      const headers: Record<string, string> = { ...c.headers };
      const key = c.key === undefined ? project.apiKey : c.key;
      if (key !== null) headers["x-api-key"] = key;
      let requestBody: string | Uint8Array | undefined = c.raw;
      if (c.body !== undefined) {
        requestBody = JSON.stringify(c.body);
        headers["content-type"] ??= "application/json";
      }
      const res = await app.request(path, {
        method,
        headers,
        body: typeof requestBody === "string" || requestBody === undefined ? requestBody : new Uint8Array(requestBody),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = text === "" ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    };
    const version = options.version ?? 3;
    const root = `/api/v${version}`;
    const api: Api = {
      app,
      pool,
      clock,
      config,
      project,
      version,
      root,
      unexpected,
      newProject,
      call,
      admin: (method, path, b) => call(method, path, { key: null, body: b, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
      create: async (b = {}) => {
        const res = await call("POST", `${root}/checks/`, { body: b });
        assert.is(res.status, 201, `create failed: ${res.text}`);
        return res.json as Record<string, unknown>;
      },
      ping: async (uuid, overrides = {}) => {
        const outcome = await pool.ping(pool.projectOfCheck(uuid)?.id ?? "", {
          target: { uuid },
          signal: "success",
          exitStatus: null,
          method: "GET",
          scheme: "http",
          remoteAddr: "10.0.0.1",
          ua: "curl/8",
          rid: null,
          body: null,
          at: clock.now(),
          ...overrides,
        });
        assert.ok(outcome.ok, `ping failed: ${JSON.stringify(outcome)}`);
      },
    };
    await body(api);
    assert.equal(unexpected.map(String), [], "the app reported unexpected errors");
  } finally {
    await pool.close();
    dir.remove();
  }
}

/**
 * Registers `body` as one test per API version, named "<name> (v1)" and so on, each on a fresh app that
 * `api.root` and `api.create` speak in that version: the answers every version shares, tested once each.
 */
export function testEachVersion(test: Test, name: string, body: (api: Api) => Promise<void>, options: ApiOptions = {}): void {
  for (const version of API_VERSIONS) test(`${name} (v${version})`, () => withApi(body, { ...options, version }));
}

/** What withRoutes gives its body: a bare app holding one route module, over a fresh one-shard pool. */
export type Routes = { app: H3; pool: Pool; clock: VirtualClock; config: Config; project: Project; unexpected: unknown[] };

/**
 * Runs `body` against a bare app with only the routes `register` adds (the ping or the badge routes),
 * one project (`projectInput` overrides its limits), at `startAt`; fails on any unhandled error.
 */
export async function withRoutes(
  register: (app: H3, deps: AppDeps) => void,
  body: (routes: Routes) => Promise<void>,
  options: { startAt: Millis; projectInput?: { pingBodyLimit?: number } },
): Promise<void> {
  const dir = tempDir();
  const pool = await createInProcessPool({
    dataDir: dir.path,
    shards: 1,
    durability: "commit",
    startAt: options.startAt,
    clock: "virtual",
    notify: { siteRoot: "http://localhost:8000", allowPrivateIps: true, smtpUrl: null },
  });
  try {
    const clock = new VirtualClock(options.startAt);
    const config = finishConfig(readSettings({ DATA_DIR: dir.path }), {
      adminToken: "t".repeat(32),
      badgeSecret: BADGE_SECRET,
      boundPort: 8000,
    });
    const unexpected: unknown[] = [];
    const app = new H3({
      silent: true,
      onError: (error: HTTPError) => {
        if (error.unhandled) unexpected.push(error.cause ?? error);
      },
    });
    register(app, {
      pool,
      clock,
      config,
      readMail,
      sendTestNotification: testNotifierOf(config, pool),
      serviceKinds: serviceKindsOf(config.services),
    });
    const project = await pool.createProject(
      { name: "p", checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 10_000, ...options.projectInput },
      options.startAt,
    );
    await body({ app, pool, clock, config, project, unexpected });
    assert.equal(unexpected, [], "no unhandled errors");
  } finally {
    await pool.close();
    dir.remove();
  }
}

/** The process's test notification, with the test configuration's options. */
function testNotifierOf(config: Config, pool: Pool): SendTestNotification {
  const options = {
    siteRoot: config.siteRoot,
    allowPrivateIps: config.allowPrivateIps,
    smtpUrl: config.smtpUrl,
    services: config.services,
    channels: (projectId: string) => pool.listChannels(projectId),
  };
  return (project, channel, at) => sendTestNotification(project, channel, at, options);
}

/** Serves an API's app over real HTTP on a loopback port while `body` runs (its base URL given). */
export async function served(api: Api, body: (url: string) => Promise<void>): Promise<void> {
  const server = createHttpServer(toNodeHandler(api.app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    await body(`http://127.0.0.1:${address.port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** As withApi, with the app also served over real HTTP on a loopback port (its base URL given). */
export function withServedApi(body: (api: Api, url: string) => Promise<void>, options: ApiOptions = {}): Promise<void> {
  return withApi((api) => served(api, (url) => body(api, url)), options);
}
