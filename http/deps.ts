// What the HTTP edge is built from: the pool, the clock, the settings it reads, and what the process does
// for it that this edge must not do itself (decoding mail, sending a test notification).
import type { Clock } from "../host/clock.ts";
import type { Pool } from "../host/pool-api.ts";
import type { Channel, Millis, Project } from "../engine/model.ts";

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
};

/** Decodes a stored mail into what the email keyword rules search (given by the process: mail is parsed off this thread). */
export type ReadMail = (raw: Uint8Array) => Promise<{ readonly subject: string; readonly text: string }>;

/** Sends one test notification through a channel at once; resolves with null when accepted, else the error. */
export type SendTestNotification = (project: Project, channel: Channel, at: Millis) => Promise<string | null>;

/** What every route module receives. The process gives what the HTTP edge must not do itself. */
export type AppDeps = {
  readonly pool: Pool;
  readonly clock: Clock;
  readonly config: HttpConfig;
  readonly readMail: ReadMail;
  readonly sendTestNotification: SendTestNotification;
};
