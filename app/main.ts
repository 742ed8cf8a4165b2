// `npm start`: config → listen → pool → app; SIGTERM/SIGINT: stop accepting, finish in-flight requests,
// close the pool (pending writes stored), exit 0. A start error prints one clear line and exits 1.
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "h3/node";
import type { Clock } from "../host/clock.ts";
import { monotonicClock, systemClock, VirtualClock } from "../host/clock.ts";
import { ClockMark } from "../persistence/clock-mark.ts";
import type { Pool } from "../host/pool-api.ts";
import { createWorkerPool } from "./pools.ts";
import type { ClusterConnection } from "../cluster/connect.ts";
import type { InboundSmtp } from "../mail/inbound.ts";
import { startMailReader } from "../mail/mail-reader.ts";
import { sendTestNotification } from "../notify/test-notification.ts";
import { sendEmail } from "../notify/send.ts";
import { serviceKindsOf } from "../notify/kinds/service.ts";
import type { MailReader } from "../mail/mail-reader.ts";
import type { FailureEpisodes } from "../host/failure-episodes.ts";
import { createMetrics, routeOf } from "../http/metrics.ts";
import { log, maskedConfig } from "../host/log.ts";
import { DEFAULT_PASSWORD_HASH_N } from "../host/passwords.ts";
import { createApp } from "../http/app.ts";
import { Accounts } from "../host/accounts.ts";
import { SessionFile } from "../persistence/session-file.ts";
import { SESSION_IDLE_MS } from "../http/dashboard/sessions.ts";
import { AuditTrail } from "../host/audit.ts";
import type { SharedSession, SharedSessions } from "../http/deps.ts";
import { pingListener } from "../http/routes/pings.ts";
import { lockDataDir } from "../persistence/data-dir-lock.ts";
import { OWNER_ONLY_UMASK, ownerOnlyDataDir } from "../persistence/data-dir-modes.ts";
import { ConfigError, finishConfig, loadAdminToken, loadBadgeSecret, natsAccessOf, readSettings } from "./config.ts";
import type { SignInStore } from "../host/sign-in-store.ts";
import { withSecretFiles } from "./secret-files.ts";
import { ReportScheduler } from "../notify/report-scheduler.ts";

const SHUTDOWN_GRACE_MS = 10_000; // in-flight requests get this long before their connections are cut
// Slow and idle clients must not hold the server: a request's headers must arrive within 10 s of its
// first byte (or of the connection), the whole request within 60 s; an idle keep-alive connection is kept
// 65 s, longer than the 60 s idle timeout of the usual proxies (nginx, cloud load balancers), so they
// never reuse a connection we have just closed. Expiry is checked every second, not every 30 s.
const TIMEOUTS = { headersTimeout: 10_000, requestTimeout: 60_000, connectionsCheckingInterval: 1_000 };
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

async function main(): Promise<void> {
  const settings = readSettings(withSecretFiles(process.env));
  if (settings.passwordHashN < DEFAULT_PASSWORD_HASH_N)
    log.warn(
      { passwordHashN: settings.passwordHashN },
      "PASSWORD_HASH_N is below the default: new passwords are cheaper to guess (test instances only)",
    );
  // DATA_DIR is the owner's alone: everything this process (and its worker threads) creates is 0600/0700,
  // and what an older version or a hand left wider is tightened now, said in one line
  process.umask(OWNER_ONLY_UMASK);
  try {
    const tightened = ownerOnlyDataDir(settings.dataDir);
    if (tightened > 0)
      log.warn(
        { dataDir: settings.dataDir, paths: tightened },
        "DATA_DIR was readable by other users: tightened to owner-only (directories 0700, files 0600)",
      );
  } catch (error) {
    throw new StartError(`cannot use DATA_DIR=${settings.dataDir}: ${messageOf(error)}`);
  }
  // One process per DATA_DIR (CONTRACT.md), taken before anything reads, replays or removes what is in
  // it; held until the process ends, when the kernel drops it (kill -9 included). A cluster node keeps
  // only its admin token there.
  if (settings.cluster === null) {
    try {
      lockDataDir(settings.dataDir);
    } catch (error) {
      throw new StartError(`cannot use DATA_DIR=${settings.dataDir}: ${messageOf(error)}`);
    }
  }
  // cluster mode: the nodes share the badge secret through the cluster, so NATS comes first
  let cluster: ClusterConnection | null = null;
  if (settings.cluster !== null) {
    try {
      const { connectCluster } = await import("../cluster/connect.ts"); // NATS is loaded by cluster nodes only
      cluster = await connectCluster({
        access: natsAccessOf(settings.cluster),
        node: settings.cluster.nodeId,
        replicas: settings.cluster.replicas,
        partitions: settings.cluster.partitions,
      });
    } catch (error) {
      throw new StartError(`cannot join the cluster at NATS_URL: ${messageOf(error)}`);
    }
  }
  let admin: { token: string; generated: boolean };
  let badgeSecret: string;
  try {
    admin = loadAdminToken(settings);
    badgeSecret = settings.badgeSecret ?? cluster?.badgeSecret ?? loadBadgeSecret(settings);
  } catch (error) {
    throw new StartError(`cannot use DATA_DIR=${settings.dataDir}: ${messageOf(error)}`);
  }
  const { token: adminToken, generated } = admin;
  if (generated) {
    // printed once, on purpose, in text form only (CONTRACT.md); JSON logs name the file instead, as a
    // log store must never hold a secret
    if (settings.logFormat === "text")
      console.log(`hcd: generated an admin token (stored in ${settings.dataDir}/admin-token): ${adminToken}`);
    else log.info({ file: `${settings.dataDir}/admin-token` }, "generated an admin token, stored in the file");
  }
  // How far the previous run judged deadlines (single node: a cluster's partitions keep their own time).
  let mark: ClockMark | null = null;
  if (settings.cluster === null) {
    try {
      mark = ClockMark.open(settings.dataDir, settings.clock);
    } catch (error) {
      throw new StartError(`cannot use DATA_DIR=${settings.dataDir}: ${messageOf(error)}`);
    }
  }
  // CLOCK=virtual starts where the previous run's virtual clock stood (else at the real now) and then
  // moves only through POST /admin/v1/clock; the real clock never goes back before the previous run's mark
  const clock: Clock =
    settings.clock === "virtual" ? new VirtualClock(mark?.lastAt ?? systemClock.now()) : monotonicClock(mark?.lastAt ?? null);

  // Bind first: SITE_ROOT defaults to the port actually bound (PORT=0 picks a free one).
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  let stopping = false;
  const inFlight = new Set<ServerResponse>(); // answers not yet sent: at shutdown they close their connection
  const server = createServer(TIMEOUTS, (req, res) => {
    // while stopping, every answer closes its connection, so keep-alive clients don't hold the shutdown
    if (stopping) res.setHeader("connection", "close");
    inFlight.add(res);
    res.once("close", () => inFlight.delete(res));
    if (handle !== null) return handle(req, res);
    res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "starting" }));
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS; // not a createServer option on Node 20
  // A cap on open connections bounds what a flood of sockets can take (memory, descriptors): beyond it
  // a new connection is closed at once. Each refusal also closes the idle kept-alive connections, so
  // that clients which wait between requests give way to the ones that arrive (at most once a second:
  // a flood of refused connections must not make the server walk its connection list for each).
  server.maxConnections = settings.maxConnections;
  let idleClosedAt = -Infinity; // performance.now() starts near 0: a first drop right after start must close them too
  server.on("drop", () => {
    const now = performance.now();
    if (now - idleClosedAt < 1_000) return;
    idleClosedAt = now;
    server.closeIdleConnections();
  });
  await listen(server, settings.port, settings.host);
  const boundPort = (server.address() as AddressInfo).port;
  const config = finishConfig(settings, { adminToken, badgeSecret, boundPort });
  const accessLog = config.accessLog;

  let pool: Pool;
  let sharedSessions: SharedSessions | undefined; // cluster mode: the dashboard sessions every node shares
  let backgroundFailures: FailureEpisodes | undefined; // cluster mode: failed snapshots, advances and ownership rounds
  let clusterAccounts: Accounts | undefined; // cluster mode: the users every node shares
  let clusterAudit: AuditTrail | undefined; // cluster mode: the audit log every node shares
  let signInStore: SignInStore | undefined; // cluster mode: sign-in limits and second-factor steps every node shares
  try {
    if (settings.cluster !== null && cluster !== null) {
      ({
        pool,
        sessions: sharedSessions,
        failures: backgroundFailures,
        accounts: clusterAccounts,
        audit: clusterAudit,
        signIn: signInStore,
      } = await (
        await import("./cluster-start.ts")
      ).startClusterNode(
        settings.cluster,
        cluster,
        {
          siteRoot: config.siteRoot,
          allowPrivateIps: config.allowPrivateIps,
          smtpUrl: config.smtpUrl,
          fromAddress: config.defaultFromEmail,
          services: config.services,
        },
        { maxAgeDays: config.auditMaxAgeDays, maxEvents: config.auditMaxEvents },
        { passwordHashN: settings.passwordHashN },
      ));
    } else
      pool = await createWorkerPool({
        dataDir: config.dataDir,
        shards: config.shards,
        durability: config.durability,
        clock: config.clock,
        startAt: clock.now(),
        clockNow: clock,
        mark,
        notify: {
          siteRoot: config.siteRoot,
          allowPrivateIps: config.allowPrivateIps,
          smtpUrl: config.smtpUrl,
          fromAddress: config.defaultFromEmail,
          services: config.services,
        },
      });
  } catch (error) {
    server.close();
    if (cluster !== null) throw new StartError(`cannot start the cluster node: ${messageOf(error)}`);
    // a damaged log file (persistence/file-log.ts) is refused, never read past: the operator decides
    const repair = /\blog file .* (is damaged at offset|can't be read)/.test(messageOf(error))
      ? ` (\`npx hcd repair --data-dir ${config.dataDir}\` moves it aside and reports what is lost)`
      : "";
    throw new StartError(`cannot open the store in DATA_DIR=${config.dataDir}: ${messageOf(error)}${repair}`);
  }
  // One mail parser on a worker thread, started when first needed: inbound mail and the simulation of
  // email pings share it, and nothing parses mail on this thread.
  let reader: MailReader | null = null;
  const mailReader = () => (reader ??= startMailReader());
  const readMail = async (raw: Uint8Array) => (await mailReader().read(raw)).content;
  const notifyOptions = {
    siteRoot: config.siteRoot,
    allowPrivateIps: config.allowPrivateIps,
    smtpUrl: config.smtpUrl,
    fromAddress: config.defaultFromEmail,
    services: config.services,
    channels: (projectId: string) => pool.listChannels(projectId),
  };
  const metrics = createMetrics(pool, clock, backgroundFailures);
  const accounts = clusterAccounts ?? Accounts.open(config.dataDir, { passwordHashN: settings.passwordHashN }); // single node: DATA_DIR/accounts.json
  sharedSessions ??= new SessionFile<SharedSession>(config.dataDir, SESSION_IDLE_MS); // single node: DATA_DIR/sessions.json, so a restart signs nobody out
  const smtpUrl = config.smtpUrl;
  const sendUserMail =
    smtpUrl === null
      ? undefined
      : async (to: string, subject: string, text: string) =>
          (await sendEmail({ kind: "email", to, subject, text, html: "" }, { smtpUrl, from: config.defaultFromEmail, timeoutMs: 10_000 }))
            .ok;
  // the users' weekly and monthly email reports, once each, while SMTP_URL is set
  const reports =
    smtpUrl === null
      ? null
      : new ReportScheduler({
          accounts,
          pool,
          now: () => clock.now(),
          node: settings.cluster?.nodeId ?? "local",
          siteRoot: config.siteRoot,
          send: (message) => sendEmail(message, { smtpUrl, from: config.defaultFromEmail, timeoutMs: 10_000 }),
        });
  // every change is recorded in DATA_DIR/audit (a cluster node: in the cluster's audit stream)
  const audit = clusterAudit ?? AuditTrail.open(config.dataDir, { maxAgeDays: config.auditMaxAgeDays, maxEvents: config.auditMaxEvents });
  const app = toNodeHandler(
    createApp(
      {
        pool,
        clock,
        config,
        readMail,
        sharedSessions,
        signInStore,
        accounts,
        sendUserMail,
        audit,
        serviceKinds: serviceKindsOf(config.services),
        sendTestNotification: (project, channel, at) => sendTestNotification(project, channel, at, notifyOptions),
      },
      { metrics },
    ),
  );
  const pings = pingListener({ pool, clock, audit }, (pathname, status, seconds) => metrics.observePing(pathname, status, seconds)); // the hot path answers /ping/… without h3's web objects
  handle = (req, res) => {
    if (accessLog) logAccess(req, res);
    if (pings(req, res)) return;
    res.once("finish", () => metrics.observeRequest(pathOf(req.url ?? "/"), res.statusCode));
    void app(req, res);
  };

  let smtp: InboundSmtp | null = null;
  if (config.smtpPort !== null) {
    try {
      const { startInboundSmtp } = await import("../mail/inbound.ts"); // smtp-server only where SMTP_PORT is set
      smtp = await startInboundSmtp({
        port: config.smtpPort,
        host: config.host,
        domain: config.emailDomain,
        pool,
        clock,
        reader: mailReader(),
        onError: (error) => log.warn({ err: error }, "smtp"),
        onOutcome: (result, reason) => {
          metrics.observeSmtp(result);
          if (result === "refused") log.info({ reason }, "smtp: refused"); // the reply only: addresses hold ping keys
        },
      });
    } catch (error) {
      server.close();
      await pool.close();
      throw new StartError(`cannot listen for SMTP on ${config.host}:${config.smtpPort}: ${messageOf(error)}`);
    }
    log.info(`smtp listening on ${config.host}:${smtp.port} for *@${config.emailDomain}`);
  }

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`${signal} received, shutting down`);
    const cut = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    cut.unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve())); // stops accepting; waits for in-flight
    server.closeIdleConnections(); // busy ones close after their answer:
    for (const res of inFlight) {
      if (!res.headersSent) res.setHeader("connection", "close");
      else res.once("finish", () => res.socket?.end());
    }
    await Promise.all([closed, smtp?.close(), reports?.stop()]); // a report being sent is sent and marked first
    await reader?.close();
    await pool.close(); // pending writes are stored before this resolves
    await audit.close();
    mark?.close();
    log.info("stopped");
    process.exit(0);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      stop(signal).catch((error: unknown) => {
        log.fatal({ err: error }, "shutdown failed");
        process.exit(1);
      });
    });
  }
  // The connection reconnects without end, except when a server refuses the credentials twice in a row
  // (revoked, expired): the client then closes it for good, and a node that can never rejoin exits.
  void cluster?.connection.closed().then((error) => {
    if (stopping || error === undefined) return;
    log.fatal(`lost the cluster at NATS_URL: ${messageOf(error)}`);
    process.exit(1);
  });
  const layout =
    config.cluster !== null ? `cluster node ${config.cluster.nodeId}, ${cluster?.partitionCount} partitions` : `${config.shards} shards`;
  if (accounts.userCount() === 0) log.info(firstAdminHint(config.siteRoot)); // before "listening", which a supervisor or a test waits for
  // every secret masked at any depth: the NATS password and token, the OIDC client secret, the service tokens
  log.info(
    { config: maskedConfig(config) },
    `listening on ${urlOf(config.host, boundPort)} (site root ${config.siteRoot}, ${layout}, clock ${config.clock})`,
  );
  reports?.start();
}

/** What the first start's log (and the sign-in page of an instance with no users) says: how to make the first instance admin. */
export function firstAdminHint(siteRoot: string): string {
  return (
    `no users yet: make the first instance admin with  echo "$PASSWORD" | npx hcd user create --url ${siteRoot} --email you@example.org --admin  ` +
    `(without --url while hcd is stopped; without a password on standard input it prints an invitation link), then sign in at ${siteRoot}/`
  );
}

class StartError extends Error {}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error) => reject(new StartError(`cannot listen on ${host}:${port}: ${messageOf(error)}`)));
    server.listen(port, host, () => resolve());
  });
}

/** Logs a request once answered: method, route (ids and keys replaced: a ping URL may hold a ping key), status, ms. */
function logAccess(req: IncomingMessage, res: ServerResponse): void {
  const startedAt = performance.now();
  res.once("finish", () =>
    log.info(
      {
        method: req.method,
        route: routeOf(pathOf(req.url ?? "/")),
        status: res.statusCode,
        ms: Math.round((performance.now() - startedAt) * 10) / 10,
      },
      "request",
    ),
  );
}

function pathOf(url: string): string {
  const queryAt = url.indexOf("?");
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function urlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StartError) log.fatal(error.message);
  else log.fatal({ err: error }, "failed to start");
  process.exit(1);
});
