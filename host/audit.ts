// What the audit log records (CONTRACT "Users, roles and sign-in", last bullet): the actions, who made
// them (AuditActor) and on which object, and the one function every change goes through (recordChange).
// Only changes are recorded: never a ping, a read or a refused request; never a key, token or secret.
import type { Channel, Check, Millis, Project } from "../engine/model.ts";
import type { AuditLimits, AuditPage, StoredAuditEvent } from "../persistence/audit-log.ts";
import { AuditLog } from "../persistence/audit-log.ts";

export type { AuditPage, StoredAuditEvent };

/** Every action the audit log names (docs/dashboard-and-teams.md, "Audit log", lists them): "<object>.<what happened>". */
export const AUDIT_ACTIONS = [
  "project.created",
  "project.renamed",
  "project.limits_changed",
  "project.muted",
  "project.unmuted",
  "project.deleted",
  "project.escalation_set",
  "check.created",
  "check.updated",
  "check.paused",
  "check.resumed",
  "check.deleted",
  "check.acknowledged",
  "check.imported",
  "channel.added",
  "channel.updated",
  "channel.removed",
  "maintenance.added",
  "maintenance.updated",
  "maintenance.removed",
  "key.created",
  "key.revoked",
  "status_page.created",
  "status_page.updated",
  "status_page.deleted",
  "member.invited",
  "member.invitation_cancelled",
  "member.accepted",
  "member.role_set",
  "member.removed",
  // the instance's own log (INSTANCE_LOG): users, their sign-ins and sign-in settings, backups
  "user.created",
  "user.deleted",
  "user.admin_granted",
  "user.admin_revoked",
  "account.signed_in",
  "account.sign_in_failed",
  "account.password_changed",
  "account.password_reset",
  "account.joined",
  "account.second_factor_on",
  "account.second_factor_off",
  "account.email_changed",
  "account.deleted",
  "backup.created",
] as const;

/**
 * The log of what belongs to no project but to the instance (read with GET /admin/v1/audit): users made and
 * removed, sign-ins and failed ones, passwords and second factors changed, backups. Not a project id (those
 * are UUIDs), and never shown on a project's page.
 */
export const INSTANCE_LOG = "_instance";
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Who made a change: the admin token, a project's API key (keys have no names yet: named by what they
 * may do), or a user signed in to the dashboard (named by their email).
 */
export type AuditActor =
  | { readonly kind: "admin" }
  | { readonly kind: "apiKey"; readonly name: string | null; readonly readonly: boolean }
  | { readonly kind: "user"; readonly email: string }
  /** hcd itself, acting on a setting or a request that names no one (OIDC_DEFAULT_ROLE, a ping's ?create=1). */
  | { readonly kind: "system"; readonly name: string };

/** Returns the actor as the log shows it: "admin token", the key's name, "API key (read-write)", or the user's email. */
export function actorName(actor: AuditActor): string {
  switch (actor.kind) {
    case "admin":
      return "admin token";
    case "apiKey":
      return actor.name ?? `API key (${actor.readonly ? "read-only" : "read-write"})`;
    case "user":
      return actor.email;
    case "system":
      return actor.name;
  }
}

/** The object a change touched, as the log shows it: its kind, its name (user text, quoted) and its id. */
export const auditTarget = {
  check: (check: Pick<Check, "name" | "uuid">) => `check ${JSON.stringify(check.name)} ${check.uuid}`,
  channel: (channel: Pick<Channel, "name" | "id" | "kind">) => `${channel.kind} integration ${JSON.stringify(channel.name)} ${channel.id}`,
  project: (project: Pick<Project, "name" | "id">) => `project ${JSON.stringify(project.name)} ${project.id}`,
  maintenance: (window: { readonly name: string; readonly id: string }) => `maintenance window ${JSON.stringify(window.name)} ${window.id}`,
  /** A key by what it may do (never its value). */
  key: (name: string) => `API key ${JSON.stringify(name)}`,
  statusPage: (slug: string) => `status page ${JSON.stringify(slug)}`,
  /** A user's account and how (by password, from an address...), for the instance's log. */
  account: (user: { readonly email: string; readonly id: string | null }, how: string) =>
    `user ${JSON.stringify(user.email)}${user.id === null ? "" : ` ${user.id}`}${how === "" ? "" : ` ${how}`}`,
  /** A user by email, and the role given when there is one. */
  member: (user: { readonly email: string; readonly id: string }, role: string | null) =>
    `user ${JSON.stringify(user.email)} ${user.id}${role === null ? "" : ` as ${role}`}`,
};

/** One change to record. */
export type Change = {
  readonly projectId: string;
  readonly actor: AuditActor;
  readonly action: AuditAction;
  readonly target: string;
  readonly at: Millis;
};

/** The audit log's settings: AUDIT_MAX_AGE_DAYS (default 90) and AUDIT_MAX_EVENTS per project (default 10,000). */
export const AUDIT_DEFAULTS = { maxAgeDays: 90, maxEvents: 10_000 } as const;

/** Where the events are kept: the LMDB log of DATA_DIR/audit on one node, a replicated stream in a cluster (cluster/replicated-audit.ts). */
export type AuditStore = {
  append(projectId: string, event: StoredAuditEvent): Promise<void>;
  page(projectId: string, opts: { limit: number; before: number | null }): AuditPage | Promise<AuditPage>;
  /** Writes a consistent copy for a backup into `dir`; a store that can't (the cluster's) is not given to backups. */
  copyTo(dir: string): Promise<void>;
  close(): Promise<void>;
};

/** The audit limits as a store takes them. */
export function storedLimits(limits: { maxAgeDays: number; maxEvents: number }): AuditLimits {
  return { maxAgeMs: limits.maxAgeDays * 86_400_000, maxEvents: limits.maxEvents };
}

/** The audit log as the front ends use it: record a change, read a project's page, copy it into a backup. */
export class AuditTrail {
  readonly #store: AuditStore;
  constructor(store: AuditStore) {
    this.#store = store;
  }

  /** Opens the audit log of `dataDir` (DATA_DIR/audit). */
  static open(dataDir: string, limits: { maxAgeDays: number; maxEvents: number } = AUDIT_DEFAULTS): AuditTrail {
    return new AuditTrail(AuditLog.open(dataDir, storedLimits(limits)));
  }

  /** Stores a change; resolves once it is durable. */
  record(change: Change): Promise<void> {
    return this.#store.append(change.projectId, {
      at: change.at,
      actor: actorName(change.actor),
      action: change.action,
      target: change.target,
    });
  }

  /** Returns a project's events before the cursor `before` (null: the newest), newest first. */
  async page(projectId: string, opts: { limit: number; before: number | null }): Promise<AuditPage> {
    return this.#store.page(projectId, opts);
  }

  copyTo(dir: string): Promise<void> {
    return this.#store.copyTo(dir);
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}

/**
 * Records one change made through the dashboard, the admin API or the Management API, after it succeeded
 * (call it only then: a refused change is never recorded). Without an audit log (some tests), does nothing.
 */
export async function recordChange(audit: AuditTrail | undefined, change: Change): Promise<void> {
  await audit?.record(change);
}
