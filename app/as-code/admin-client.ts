// The admin API as `hcd export` and `hcd apply` call it, many requests in one run: over HTTP to a running
// server (--url, a cluster node too), or in-process on a stopped DATA_DIR through the same app over an
// in-process pool opened once (as app/cli.ts does for one request), so both ways validate and answer alike.
import { randomBytes } from "node:crypto";
import { systemClock } from "../../host/clock.ts";
import { createApp } from "../../http/app.ts";
import { readMail } from "../../mail/message.ts";
import { sendTestNotification } from "../../notify/test-notification.ts";
import { serviceKindsOf } from "../../notify/kinds/service.ts";
import { lockDataDir } from "../../persistence/data-dir-lock.ts";
import { loadBadgeSecret } from "../config.ts";
import type { Settings } from "../config.ts";
import { createInProcessPool } from "../pools.ts";

export type AdminAnswer = { readonly status: number; readonly json: unknown };

export type AdminClient = {
  /** Sends one admin request; answers its status and JSON (a body that is not JSON as {"error": text}). */
  request(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<AdminAnswer>;
  close(): Promise<void>;
};

/** An admin answer that is not 2xx, as an error naming the request and the server's reason. */
export class AdminError extends Error {
  readonly answer: AdminAnswer;
  constructor(method: string, path: string, answer: AdminAnswer) {
    const reason = (answer.json as { error?: unknown } | null)?.error;
    super(`${method} ${path}: ${answer.status} ${typeof reason === "string" ? reason : JSON.stringify(answer.json)}`);
    this.answer = answer;
  }
}

/** Sends a request and returns its JSON; throws AdminError unless the answer is 2xx. */
export async function call(client: AdminClient, method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<unknown> {
  const answer = await client.request(method, path, body);
  if (answer.status < 200 || answer.status > 299) throw new AdminError(method, path, answer);
  return answer.json;
}

/** The admin API of the server at `url` with its admin token. */
export function httpAdminClient(url: string, token: string): AdminClient {
  const base = url.endsWith("/") ? url : url + "/";
  return {
    request: async (method, path, body) => answerOf(await fetch(new URL(path.replace(/^\//, ""), base), init(method, token, body))),
    close: async () => {},
  };
}

/**
 * The admin API on a stopped server's DATA_DIR, locked while the client is open (a running server refuses
 * it, and it a server). Applies no deadlines and sends nothing: the server does that when it next starts.
 */
export async function dataDirAdminClient(settings: Settings): Promise<AdminClient> {
  const siteRoot = settings.siteRoot ?? `http://localhost:${settings.port}`;
  const lock = lockDataDir(settings.dataDir);
  const pool = await createInProcessPool({
    dataDir: settings.dataDir, shards: 1, durability: "flush", clock: "virtual", startAt: Date.now(), passive: true,
    notify: { siteRoot, allowPrivateIps: settings.allowPrivateIps, smtpUrl: settings.smtpUrl },
  }).catch((error: unknown) => {
    lock.release();
    throw error;
  });
  const token = randomBytes(32).toString("base64url"); // this client's own: nothing else reaches the app
  const notifyOptions = { siteRoot, allowPrivateIps: settings.allowPrivateIps, smtpUrl: settings.smtpUrl, services: settings.services,
    channels: (projectId: string) => pool.listChannels(projectId) };
  const app = createApp({ pool, clock: systemClock, readMail, serviceKinds: serviceKindsOf(settings.services),
    sendTestNotification: (project, channel, at) => sendTestNotification(project, channel, at, notifyOptions),
    config: { siteRoot, adminToken: token, apiRateLimit: 0, smtpPort: null, emailDomain: settings.emailDomain, badgeSecret: loadBadgeSecret(settings),
      metricsToken: null, dataDir: settings.dataDir } });
  let closed = false;
  return {
    request: async (method, path, body) => answerOf(await app.fetch(new Request(new URL(path, "http://localhost/"), init(method, token, body)))),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await pool.close();
      } finally {
        lock.release();
      }
    },
  };
}

function init(method: string, token: string, body: unknown): RequestInit {
  return {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

async function answerOf(res: Response): Promise<AdminAnswer> {
  const text = await res.text();
  if (text === "") return { status: res.status, json: null };
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status, json: { error: text } };
  }
}
