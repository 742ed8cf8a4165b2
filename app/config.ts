// Environment → typed Config, read once at start (CONTRACT.md "Configuration").
// `readSettings` is pure; `loadAdminToken`, `loadBadgeSecret` and `finishConfig` finish it once DATA_DIR and the port are known.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, hostname } from "node:os";
import { join } from "node:path";
import type { NatsAccess, NatsCredentials } from "../cluster/connect.ts";
import { DEFAULT_SNAPSHOT_EVERY } from "../cluster/partitions.ts";
import { isHttpUrl } from "../http/admin-input.ts";
import { proxyEntryProblem } from "../http/client-address.ts";
import { DURABILITIES } from "../persistence/open.ts";
import type { Durability } from "../persistence/open.ts";
import type { ServiceSettings } from "../notify/kinds/settings.ts";
import { serviceSettingsOf } from "../notify/kinds/settings.ts";
import type { OidcNewUsers, OidcSettings } from "../host/oidc.ts";
import { roleOf, ROLES } from "../engine/roles.ts";
import { isLoopbackHttp } from "../host/oidc.ts";
import { DEFAULT_PASSWORD_HASH_N } from "../host/passwords.ts";
import { VERSION } from "./version.ts";

export const CLOCK_KINDS = ["real", "virtual"] as const;
export const LOG_FORMATS = ["json", "text"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type ClockKind = (typeof CLOCK_KINDS)[number];

/** Settings from the environment alone; adminToken is null when it must come from DATA_DIR. */
export type Settings = {
  readonly port: number; // 0 = pick a free one
  readonly host: string;
  readonly dataDir: string;
  readonly siteRoot: string | null; // null = http://localhost:<bound port>
  readonly adminToken: string | null;
  readonly badgeSecret: string | null; // BADGE_SECRET; null: DATA_DIR/badge-secret (a cluster: the cluster's own)
  readonly shards: number;
  /** PASSWORD_HASH_N: scrypt's cost for new password hashes (host/passwords.ts); lower than the default only for a test instance. */
  readonly passwordHashN: number;
  readonly smtpPort: number | null;
  readonly emailDomain: string;
  readonly smtpUrl: string | null;
  /** DEFAULT_FROM_EMAIL: the From of every mail hcd sends (alerts, invitations, password resets, test notifications). */
  readonly defaultFromEmail: string;
  readonly allowPrivateIps: boolean;
  readonly services: ServiceSettings; // the endpoints and tokens of the kinds of notify/kinds/ (TELEGRAM_BOT_TOKEN, ...)
  readonly durability: Durability;
  readonly clock: ClockKind;
  readonly apiRateLimit: number; // requests per key per minute; 0 = off
  readonly maxConnections: number; // open HTTP connections; more are refused
  readonly metricsToken: string | null; // a Bearer token for /metrics besides the admin token
  readonly logFormat: LogFormat;
  readonly logLevel: LogLevel;
  readonly accessLog: boolean; // one log line per answered request (off by default)
  // TRUSTED_PROXIES: the reverse proxies (addresses, CIDR ranges) whose X-Forwarded-For names the client
  // the sign-in limits count (empty: the connection's own address; the header is the client's text)
  readonly trustedProxies: readonly string[];
  readonly auditMaxAgeDays: number; // AUDIT_MAX_AGE_DAYS: a project's audit events older than this go (default 90)
  readonly auditMaxEvents: number; // AUDIT_MAX_EVENTS: at most this many per project, the oldest go first (default 10,000)
  readonly cluster: ClusterSettings | null; // null: single-node mode (no NATS_URL)
  // OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: "Sign in with SSO" (null: off); OIDC_DEFAULT_ROLE: a
  // first SSO sign-in makes its user ("none": with no role; "<role>:<project id>": with that role there)
  readonly oidc: OidcSettings | null;
};

/** Cluster mode (NATS_URL set): the NATS servers, this node's name, and the settings every node must share. */
export type ClusterSettings = {
  readonly natsUrls: readonly string[]; // scheme://host:port, the credentials taken out into the fields below
  readonly natsUser: string | null; // from NATS_URL's user:password@ (one pair for every server)
  readonly natsPassword: string | null;
  readonly natsToken: string | null; // from NATS_URL's token@
  readonly natsCreds: string | null; // NATS_CREDS: a NATS credentials file (user JWT and nkey seed)
  readonly natsTls: boolean; // tls:// URLs: every connection uses TLS and verifies the server's certificate
  readonly natsTlsCa: string | null; // NATS_TLS_CA: the CA file that certificate is verified against (else the system's)
  readonly nodeId: string;
  readonly partitions: number | null; // CLUSTER_PARTITIONS, null when unset: the cluster keeps the count its first node chose
  readonly replicas: number; // CLUSTER_REPLICAS: copies of every stream (3 on a three-server cluster)
  readonly snapshotEvery: number; // CLUSTER_SNAPSHOT_EVERY: records between a partition's snapshots (its held pings stored then)
};

/** The finished configuration the server runs with. */
export type Config = Omit<Settings, "siteRoot" | "adminToken" | "badgeSecret"> & {
  readonly siteRoot: string; // no trailing slash
  readonly adminToken: string;
  readonly badgeSecret: string; // signs badge URLs; never sent anywhere
  readonly version: string; // this release (package.json)
};

/** A configuration problem, with every bad variable named in the message. */
export class ConfigError extends Error {
  override get name() {
    return "ConfigError";
  }
}

type Env = Readonly<Record<string, string | undefined>>;

type NatsAccessSettings = Pick<
  ClusterSettings,
  "natsUrls" | "natsUser" | "natsPassword" | "natsToken" | "natsCreds" | "natsTls" | "natsTlsCa"
>;

/** A NATS URL: scheme, optional user:password@ or token@ (percent-encoded), host (name, IPv4 or [IPv6]), optional port. */
const NATS_URL = /^(nats|tls):\/\/(?:([^@/\s]*)@)?((?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?)$/;

/**
 * NATS_URL's servers with their credentials taken out, NATS_CREDS and NATS_TLS_CA; adds to `problems`.
 * Messages never repeat NATS_URL: it may hold a password.
 */
function readNatsAccess(natsUrl: string, creds: string | null, tlsCa: string | null, problems: string[]): NatsAccessSettings {
  const urls = natsUrl
    .split(",")
    .map((url) => url.trim())
    .filter((url) => url !== "");
  const parsed = urls.map((url) => NATS_URL.exec(url));
  const good = parsed.filter((match) => match !== null);
  const access: NatsAccessSettings = {
    natsUrls: [],
    natsUser: null,
    natsPassword: null,
    natsToken: null,
    natsCreds: creds,
    natsTls: false,
    natsTlsCa: tlsCa,
  };
  if (good.length !== urls.length || urls.length === 0) {
    problems.push("NATS_URL: expected comma-separated nats://[user:password@]host:port or tls://...");
    return access;
  }
  // the client sends one set of credentials to every server, and uses TLS with all of them or none
  const userinfos = new Set(good.map((match) => match[2]).filter((userinfo) => userinfo !== undefined));
  if (userinfos.size > 1) problems.push("NATS_URL: every URL that carries credentials must carry the same");
  const [userinfo] = [...userinfos];
  const decode = (part: string): string => {
    try {
      return decodeURIComponent(part);
    } catch {
      problems.push("NATS_URL: the credentials are not valid percent-encoding");
      return part;
    }
  };
  let { natsUser, natsPassword, natsToken } = access;
  if (userinfo !== undefined && userinfo.includes(":")) {
    natsUser = decode(userinfo.slice(0, userinfo.indexOf(":")));
    natsPassword = decode(userinfo.slice(userinfo.indexOf(":") + 1));
  } else if (userinfo !== undefined && userinfo !== "") {
    natsToken = decode(userinfo);
  }
  const schemes = new Set(good.map((match) => match[1]));
  if (schemes.size > 1) problems.push("NATS_URL: either every URL is tls:// or none");
  const natsTls = schemes.has("tls");
  if (tlsCa !== null && !natsTls) problems.push("NATS_TLS_CA: only with tls:// URLs in NATS_URL");
  if (creds !== null && userinfo !== undefined) problems.push("NATS_CREDS: not with credentials in NATS_URL (choose one)");
  return { ...access, natsUrls: good.map((match) => `${match[1]}://${match[3]}`), natsUser, natsPassword, natsToken, natsTls };
}

/** Returns the settings from `env`; throws ConfigError naming every invalid variable. */
export function readSettings(env: Env): Settings {
  const problems: string[] = [];
  const value = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === "" ? undefined : raw.trim();
  };
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}=${raw}: expected an integer from ${min} to ${max}`);
      return fallback;
    }
    return Number(raw);
  };
  const powerOfTwo = (name: string, fallback: number, min: number, max: number): number => {
    const n = integer(name, fallback, min, max);
    if (Number.isInteger(Math.log2(n))) return n;
    problems.push(`${name}=${n}: expected a power of two (like ${fallback})`);
    return fallback;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const found = allowed.find((a) => a === raw.toLowerCase());
    if (found === undefined) problems.push(`${name}=${raw}: expected one of ${allowed.join(", ")}`);
    return found ?? fallback;
  };
  const flag = (name: string): boolean => {
    const raw = value(name)?.toLowerCase();
    if (raw === undefined) return false;
    if (["true", "1", "yes", "on"].includes(raw)) return true;
    if (["false", "0", "no", "off"].includes(raw)) return false;
    problems.push(`${name}=${raw}: expected true or false`);
    return false;
  };

  const port = integer("PORT", 8000, 0, 65535);
  const smtpPortRaw = value("SMTP_PORT");
  const smtpPort = smtpPortRaw === undefined ? null : integer("SMTP_PORT", 0, 0, 65535);
  let siteRoot = value("SITE_ROOT") ?? null;
  if (siteRoot !== null) {
    siteRoot = siteRoot.replace(/\/+$/, "");
    if (!isHttpUrl(siteRoot)) problems.push(`SITE_ROOT=${siteRoot}: expected an absolute http(s) URL`);
  }
  const smtpUrl = value("SMTP_URL") ?? null;
  if (smtpUrl !== null && !/^smtps?:\/\/[^/]+/.test(smtpUrl)) {
    problems.push(`SMTP_URL: expected smtp://[user:pass@]host[:port] or smtps://...`);
  }
  const services = serviceSettingsOf(value);
  problems.push(...services.problems);
  const adminToken = value("ADMIN_TOKEN") ?? null;
  const badgeSecret = value("BADGE_SECRET") ?? null;
  if (badgeSecret !== null && badgeSecret.length < 32)
    problems.push("BADGE_SECRET: expected at least 32 characters (e.g. openssl rand -base64 32)");
  const defaultFromEmail = value("DEFAULT_FROM_EMAIL") ?? "hcd@localhost";
  if (!/^[^\s@<>"]+@[A-Za-z0-9.-]+$/.test(defaultFromEmail))
    problems.push(`DEFAULT_FROM_EMAIL=${defaultFromEmail}: expected an email address (like hcd@example.org)`);
  const emailDomain = value("EMAIL_DOMAIN") ?? "localhost";
  if (!/^[A-Za-z0-9.-]+$/.test(emailDomain)) problems.push(`EMAIL_DOMAIN=${emailDomain}: expected a domain name`);

  const clock = oneOf("CLOCK", CLOCK_KINDS, "real");
  let cluster: ClusterSettings | null = null;
  const natsUrl = value("NATS_URL");
  if (natsUrl !== undefined) {
    const nats = readNatsAccess(natsUrl, value("NATS_CREDS") ?? null, value("NATS_TLS_CA") ?? null, problems);
    const nodeId = value("NODE_ID") ?? hostname().replace(/[^A-Za-z0-9_-]/g, "-");
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(nodeId)) problems.push(`NODE_ID=${nodeId}: letters, digits, "_" and "-" only (at most 64)`);
    if (value("ADMIN_TOKEN") === undefined) problems.push("ADMIN_TOKEN: required with NATS_URL (every node must have the same)");
    if (clock !== "real") problems.push("CLOCK=virtual: not available with NATS_URL (the nodes share the real clock)");
    cluster = {
      ...nats,
      nodeId,
      partitions: value("CLUSTER_PARTITIONS") === undefined ? null : integer("CLUSTER_PARTITIONS", 0, 1, 1024),
      replicas: integer("CLUSTER_REPLICAS", 3, 1, 5),
      snapshotEvery: integer("CLUSTER_SNAPSHOT_EVERY", DEFAULT_SNAPSHOT_EVERY, 100, 1_000_000),
    };
  } else {
    for (const name of ["NATS_CREDS", "NATS_TLS_CA"]) if (value(name) !== undefined) problems.push(`${name}: only with NATS_URL`);
  }
  const oidc = readOidc(value, problems);
  const settings: Settings = {
    port,
    host: value("HOST") ?? "127.0.0.1",
    dataDir: value("DATA_DIR") ?? "./data",
    siteRoot,
    adminToken,
    badgeSecret,
    shards: integer("SHARDS", availableParallelism(), 1, 256),
    passwordHashN: powerOfTwo("PASSWORD_HASH_N", DEFAULT_PASSWORD_HASH_N, 2 ** 10, 2 ** 20),
    smtpPort,
    emailDomain,
    smtpUrl,
    defaultFromEmail,
    allowPrivateIps: flag("INTEGRATIONS_ALLOW_PRIVATE_IPS"),
    services: services.settings,
    durability: oneOf("DURABILITY", DURABILITIES, "flush"),
    clock,
    // spec §8: 100 requests per minute per key; off by default under CLOCK=virtual (tests and replays
    // drive the API far faster than any client would), unless set explicitly
    apiRateLimit: integer("API_RATE_LIMIT", clock === "virtual" ? 0 : 100, 0, 1_000_000_000),
    maxConnections: integer("MAX_CONNECTIONS", 4096, 1, 1_000_000),
    metricsToken: value("METRICS_TOKEN") ?? null,
    logFormat: oneOf("LOG_FORMAT", LOG_FORMATS, "text"),
    logLevel: oneOf("LOG_LEVEL", LOG_LEVELS, "info"),
    accessLog: flag("LOG_ACCESS"),
    trustedProxies: readTrustedProxies(value("TRUSTED_PROXIES"), problems),
    auditMaxAgeDays: integer("AUDIT_MAX_AGE_DAYS", 90, 1, 36_500),
    auditMaxEvents: integer("AUDIT_MAX_EVENTS", 10_000, 1, 10_000_000),
    cluster,
    oidc,
  };
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return settings;
}

/** TRUSTED_PROXIES: comma-separated addresses or CIDR ranges, each checked. */
function readTrustedProxies(raw: string | undefined, problems: string[]): string[] {
  const entries = (raw ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of entries) {
    const problem = proxyEntryProblem(entry);
    if (problem !== null) problems.push(`TRUSTED_PROXIES=${problem}`);
  }
  return entries;
}

/** The three OIDC_* settings, all or none; the issuer on https (plain http only to this machine); OIDC_DEFAULT_ROLE only with them. */
function readOidc(value: (name: string) => string | undefined, problems: string[]): OidcSettings | null {
  const issuer = value("OIDC_ISSUER"),
    clientId = value("OIDC_CLIENT_ID"),
    clientSecret = value("OIDC_CLIENT_SECRET");
  const defaultRole = value("OIDC_DEFAULT_ROLE");
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) {
    if (defaultRole !== undefined) problems.push("OIDC_DEFAULT_ROLE: only with OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET");
    return null;
  }
  if (issuer === undefined || clientId === undefined || clientSecret === undefined) {
    problems.push("OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: set all three or none");
    return null;
  }
  if (!issuer.startsWith("https://") && !isLoopbackHttp(issuer))
    problems.push(`OIDC_ISSUER=${issuer}: expected an https URL (http only to localhost)`);
  return { issuer, clientId, clientSecret, newUsers: readNewUsers(defaultRole, problems) }; // the issuer as the provider spells it: discovery compares it exactly
}

/** OIDC_DEFAULT_ROLE: unset (no users made at sign-in), "none", or "<role>:<project id>". */
function readNewUsers(raw: string | undefined, problems: string[]): OidcNewUsers {
  if (raw === undefined) return null;
  if (raw === "none") return { grant: null };
  const at = raw.indexOf(":");
  const role = roleOf(raw.slice(0, at)),
    projectId = raw.slice(at + 1);
  if (at < 0 || role === null || !/^[\w-]{1,64}$/.test(projectId)) {
    problems.push(`OIDC_DEFAULT_ROLE=${raw}: expected none or <role>:<project id>, the role one of ${ROLES.join(", ")}`);
    return null;
  }
  return { grant: { role, projectId } };
}

/** Returns the admin token: ADMIN_TOKEN, else DATA_DIR/admin-token, else a new one written there (generated: true). */
export function loadAdminToken(settings: Settings): { token: string; generated: boolean } {
  if (settings.adminToken !== null) return { token: settings.adminToken, generated: false };
  const { secret, generated } = readOrCreateSecret(settings.dataDir, "admin-token");
  return { token: secret, generated };
}

/** Returns the secret that signs badge URLs: BADGE_SECRET, else DATA_DIR/badge-secret, created on first start, kept across restarts. */
export function loadBadgeSecret(settings: Settings): string {
  return settings.badgeSecret ?? readOrCreateSecret(settings.dataDir, "badge-secret").secret;
}

/** Returns the secret stored in DATA_DIR/`name`, or a new random one written there (owner-only, never overwritten). */
function readOrCreateSecret(dataDir: string, name: string): { secret: string; generated: boolean } {
  const path = join(dataDir, name);
  const stored = readSecret(path);
  if (stored !== null) return { secret: stored, generated: false };
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  try {
    writeFileSync(path, secret + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    // another process (the CLI, a second start) wrote it first: theirs is the one in use
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return { secret: readSecret(path) ?? secret, generated: false };
    throw error;
  }
  return { secret, generated: true };
}

function readSecret(path: string): string | null {
  try {
    const stored = readFileSync(path, "utf8").trim();
    return stored === "" ? null : stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return null;
  }
}

/** Returns the finished Config; SITE_ROOT defaults to http://localhost:<the port actually bound>. */
export function finishConfig(settings: Settings, opts: { adminToken: string; badgeSecret: string; boundPort: number }): Config {
  return {
    ...settings,
    siteRoot: settings.siteRoot ?? `http://localhost:${opts.boundPort}`,
    adminToken: opts.adminToken,
    badgeSecret: opts.badgeSecret,
    version: VERSION,
  };
}

/** The cluster connection's servers, credentials and TLS, as cluster/connect.ts takes them. */
export function natsAccessOf(cluster: ClusterSettings): NatsAccess {
  const credentials: NatsCredentials | null =
    cluster.natsUser !== null
      ? { kind: "password", user: cluster.natsUser, password: cluster.natsPassword ?? "" }
      : cluster.natsToken !== null
        ? { kind: "token", token: cluster.natsToken }
        : cluster.natsCreds !== null
          ? { kind: "creds", file: cluster.natsCreds }
          : null;
  return { urls: cluster.natsUrls, credentials, tls: cluster.natsTls ? { caFile: cluster.natsTlsCa } : null };
}
