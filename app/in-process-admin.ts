// The admin API served in-process on a stopped server's DATA_DIR: the same app over an in-process pool,
// with DATA_DIR's users and audit log, so a CLI command without --url validates and answers as the running
// server would. The pool applies no deadlines and sends no notifications (passive): the server does that
// when it next starts. Commands carry the real time.
import { randomBytes } from "node:crypto";
import { systemClock } from "../host/clock.ts";
import { Accounts } from "../host/accounts.ts";
import { AuditTrail } from "../host/audit.ts";
import { createApp } from "../http/app.ts";
import { readMail } from "../mail/message.ts";
import { sendTestNotification } from "../notify/test-notification.ts";
import { serviceKindsOf } from "../notify/kinds/service.ts";
import { lockDataDir } from "../persistence/data-dir-lock.ts";
import { loadBadgeSecret } from "./config.ts";
import type { Settings } from "./config.ts";
import { createInProcessPool } from "./pools.ts";
import type { Pool } from "../host/pool-api.ts";

/** The admin API on DATA_DIR: `fetch` takes requests with `token` as their bearer token; `close` stores everything and lets DATA_DIR go. */
export type InProcessAdmin = { readonly token: string; fetch(request: Request): Promise<Response>; close(): Promise<void> };

/** A stopped server's DATA_DIR opened in this process: locked (a server running on it refuses this, and this it), its store through a passive in-process pool, its audit log. */
export type StoppedDataDir = { readonly pool: Pool; readonly audit: AuditTrail; close(): Promise<void> };

/** Opens the stopped DATA_DIR: no deadlines are applied and nothing is sent (the server does that when it next starts). */
export async function openStoppedDataDir(settings: Settings): Promise<StoppedDataDir> {
  const lock = lockDataDir(settings.dataDir);
  const pool = await createInProcessPool({
    dataDir: settings.dataDir,
    shards: 1,
    durability: "flush",
    clock: "virtual",
    startAt: Date.now(),
    passive: true,
    notify: {
      siteRoot: siteRootOf(settings),
      allowPrivateIps: settings.allowPrivateIps,
      smtpUrl: settings.smtpUrl,
      fromAddress: settings.defaultFromEmail,
    },
  }).catch((error: unknown) => {
    lock.release();
    throw error;
  });
  const audit = AuditTrail.open(settings.dataDir, { maxAgeDays: settings.auditMaxAgeDays, maxEvents: settings.auditMaxEvents });
  return {
    pool,
    audit,
    close: async () => {
      try {
        await pool.close();
        await audit.close();
      } finally {
        lock.release();
      }
    },
  };
}

/** Opens DATA_DIR (refused while a server runs on it) and serves the admin API on it in this process. */
export async function openInProcessAdmin(settings: Settings): Promise<InProcessAdmin> {
  const siteRoot = siteRootOf(settings);
  const stopped = await openStoppedDataDir(settings);
  const { pool, audit } = stopped;
  const token = randomBytes(32).toString("base64url"); // this call's own: nothing else reaches the app
  const notifyOptions = {
    siteRoot,
    allowPrivateIps: settings.allowPrivateIps,
    smtpUrl: settings.smtpUrl,
    fromAddress: settings.defaultFromEmail,
    services: settings.services,
    channels: (projectId: string) => pool.listChannels(projectId),
  };
  const app = createApp({
    pool,
    clock: systemClock,
    readMail,
    serviceKinds: serviceKindsOf(settings.services),
    audit,
    accounts: Accounts.open(settings.dataDir, { passwordHashN: settings.passwordHashN }), // `hcd user create` hashes as the server would
    sendTestNotification: (project, channel, at) => sendTestNotification(project, channel, at, notifyOptions),
    config: {
      siteRoot,
      adminToken: token,
      apiRateLimit: 0,
      smtpPort: null,
      emailDomain: settings.emailDomain,
      badgeSecret: loadBadgeSecret(settings),
      metricsToken: null,
      dataDir: settings.dataDir,
    },
  });
  return {
    token,
    fetch: async (request) => app.fetch(request),
    close: () => stopped.close(),
  };
}

function siteRootOf(settings: Settings): string {
  return settings.siteRoot ?? `http://localhost:${settings.port}`;
}
