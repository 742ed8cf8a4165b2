// What the HTTP edge is built from: the pool, the clock, the settings it reads, and what the process does
// for it that this edge must not do itself (decoding mail, sending a test notification).
import type { Clock } from "../host/clock.ts";
import type { Pool } from "../host/pool-api.ts";
import type { AuditTrail } from "../host/audit.ts";
import type { Channel, Millis, Project, ServiceFields, ServiceKind } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import type { Accounts } from "../host/accounts.ts";
import type { SignInStore } from "../host/sign-in-store.ts";
import type { OidcSettings } from "../host/oidc.ts";

/** The settings the HTTP front reads: a part of the process's configuration. */
export type HttpConfig = {
  readonly siteRoot: string; // no trailing slash
  readonly adminToken: string;
  readonly apiRateLimit: number; // requests per key per minute; 0 = off
  readonly smtpPort: number | null; // null = the inbound SMTP listener is off
  readonly emailDomain: string;
  readonly badgeSecret: string; // signs badge URLs; never leaves the server
  readonly metricsToken: string | null; // a Bearer token for /metrics besides the admin token
  readonly dataDir: string; // where a backup's scratch copy is made (on the data's file system)
  readonly oidc?: OidcSettings | null; // "Sign in with SSO" when set
  readonly version?: string; // this release (package.json), sent by /api/v3/status/ as X-Hcd-Version
  readonly smtpUrl?: string | null; // outbound mail (SMTP_URL); null or absent: email integrations are not offered
  readonly trustedProxies?: readonly string[]; // TRUSTED_PROXIES: whose X-Forwarded-For the sign-in limits believe
};

/** Decodes a stored mail into what the email keyword rules search (given by the process: mail is parsed off this thread). */
export type ReadMail = (raw: Uint8Array) => Promise<{ readonly subject: string; readonly text: string }>;

/** Sends one test notification through a channel at once; resolves with null when accepted, else the error. */
export type SendTestNotification = (project: Project, channel: Channel, at: Millis) => Promise<string | null>;

/** The notification kinds of notify/kinds/ as this edge needs them: each value's check and what it holds. */
export type ServiceKinds = {
  parse(kind: ServiceKind, value: unknown): Outcome<ServiceFields>;
  help(kind: ServiceKind): string;
  /** The inputs of the kind's own form on the integrations page. */
  form(kind: ServiceKind): readonly KindFormField[];
  /** The kinds that run a program or reach any host on the server's behalf (shell, apprise): the operator's alone. */
  operatorOnly(kind: ServiceKind): boolean;
  /** Why this server cannot send the kind (a switch off, a token not set), or null when it can. */
  unavailable(kind: ServiceKind): string | null;
  /** What the kind asks its provider once when an integration is saved (a Matrix alias → its room id). */
  prepare(kind: ServiceKind, fields: ServiceFields): Promise<Outcome<ServiceFields>>;
};

/** One input of a kind's form: a field of its value (list: comma-separated, sent as an array). */
export type KindFormField = {
  readonly name: string;
  readonly label: string;
  readonly input: "text" | "secret" | "number" | "list" | "bool" | "textarea" | "select";
  readonly options?: readonly (readonly [value: string, label: string])[]; // a select's choices
  readonly initial?: string; // what a new integration's form holds (a select's choice)
  readonly required: boolean;
  readonly hint?: string;
  /** Where the message and the secrets go (a server URL, a site): changing it asks for the secret fields again. */
  readonly target?: boolean;
};

/** A dashboard session as the nodes of a cluster share it (the same fields as dashboard/sessions.ts's Session). */
export type SharedSession = {
  readonly id: string;
  readonly principal:
    | { readonly kind: "admin"; readonly tokenHash: string }
    | { readonly kind: "key"; readonly apiKey: string }
    | { readonly kind: "user"; readonly userId: string; readonly generation: number };
  readonly csrf: string;
  readonly expiresAt: Millis;
};

/**
 * Where dashboard sessions are kept beyond this process, so a restart signs nobody out: DATA_DIR on a single
 * node (persistence/session-file.ts), the cluster's bucket, where a session opened on one node is known on
 * every other. Kept under the SHA-256 of their id, never the id (absent: this process's memory alone).
 */
export type SharedSessions = {
  /** Stores a session opened or renewed here; resolves once stored. */
  put(session: SharedSession): Promise<void>;
  /** Removes a session everywhere; resolves once removed. */
  remove(id: string): Promise<void>;
  /** The stored session with this id, or null. */
  get(id: string): Promise<SharedSession | null>;
  /** Hears every session another node removed (signed out, or its key no longer opens anything), by its key (host/session-key.ts). */
  onRemoved(listener: (key: string) => void): void;
};

/** What every route module receives. The process gives what the HTTP edge must not do itself. */
export type AppDeps = {
  readonly pool: Pool;
  readonly clock: Clock;
  readonly config: HttpConfig;
  readonly readMail: ReadMail;
  readonly sendTestNotification: SendTestNotification;
  readonly serviceKinds: ServiceKinds;
  /** Cluster mode: the dashboard sessions every node shares. */
  readonly sharedSessions?: SharedSessions;
  /** Cluster mode: failed sign-ins and sign-ins waiting for their second factor, shared by every node (absent: this node's memory). */
  readonly signInStore?: SignInStore;
  /** Sends a plain-text email to a user (a password reset link); absent when SMTP_URL is not set. Resolves false when it was not sent. */
  readonly sendUserMail?: (to: string, subject: string, text: string) => Promise<boolean>;
  /** The dashboard's users and their roles (absent: none, kept in memory; the process passes DATA_DIR's). */
  readonly accounts?: Accounts;
  /** Where every change is recorded (host/audit.ts); absent: nothing is recorded (tests of other things). */
  readonly audit?: AuditTrail;
};
