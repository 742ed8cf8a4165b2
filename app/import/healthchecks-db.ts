// `hcd import healthchecks --db`: a whole Healthchecks instance read from its database (tables and
// formats as v3.13 keeps them, older schemas' columns tolerated: see fixtures/healthchecks/README.md):
// projects with their keys, integrations with their settings, checks with their state, flips and pings,
// users with their password hashes, and their roles. Every row is untrusted: one that does not read is
// listed as skipped, never half-used.
import { djangoHashProblem } from "../../host/passwords.ts";
import type { ReferenceDb } from "./reference-db.ts";
import type { Row } from "./reference-values.ts";
import { booleanAt, bytesAt, durationAt, instantAt, integerAt, optionalUuidAt, RowError, textAt, uuidAt } from "./reference-values.ts";
import { channelValueOf } from "./channel-values.ts";
import type { MemberRole, Progress, Skipped, Source, SourceChannel, SourceCheck, SourcePing, SourceProject, SourceUser } from "./model.ts";

export type DbImportOptions = { readonly secretKey: string | null; readonly progress: Progress };

const ROLES: Readonly<Record<string, MemberRole>> = { r: "readonly", w: "member", m: "manager" };
const HASHED_KEY = /^[^.\s]{8}\.[0-9a-f]{64}$/;
const PLAIN_KEY = /^[A-Za-z0-9_-]{16,128}$/;
const PING_KEY = /^[-a-zA-Z0-9_]{8,128}$/;
/** The newest flips a check brings (hcd's cluster keeps a check's newest 1,000). */
const FLIPS_KEPT = 1_000;

/** Reads everything the import brings from the database. */
export async function readDatabase(db: ReferenceDb, options: DbImportOptions): Promise<Source> {
  for (const table of [
    "auth_user",
    "accounts_profile",
    "accounts_project",
    "api_check",
    "api_channel",
    "api_channel_checks",
    "api_ping",
    "api_flip",
  ]) {
    if ((await db.columns(table)).size === 0)
      throw new RowError(`${db.label} has no ${table} table: it is not a Healthchecks database (or not one of version 2 or later)`);
  }
  const skipped: Skipped[] = [];
  const users = new Map<number, Row>();
  for (const row of await db.query("SELECT * FROM auth_user ORDER BY id")) users.set(integerAt(row, "id", 0), row);
  const profiles = new Map<number, Row>();
  for (const row of await db.query("SELECT * FROM accounts_profile")) profiles.set(integerAt(row, "user_id", 0), row);
  const credentials =
    (await db.columns("accounts_credential")).size === 0
      ? new Set<number>()
      : new Set((await db.query("SELECT DISTINCT user_id FROM accounts_credential")).map((row) => integerAt(row, "user_id", 0)));
  const members = (await db.columns("accounts_member")).size === 0 ? [] : await db.query("SELECT * FROM accounts_member ORDER BY id");
  const assigned = new Map<number, number[]>(); // check id → channel ids
  for (const row of await db.query("SELECT channel_id, check_id FROM api_channel_checks")) {
    const check = integerAt(row, "check_id", 0);
    assigned.set(check, [...(assigned.get(check) ?? []), integerAt(row, "channel_id", 0)]);
  }
  const s3Column = (await db.columns("api_ping")).has("object_size");
  const emailOf = (userId: number) =>
    textAt(users.get(userId) ?? {}, "email")
      .trim()
      .toLowerCase();

  const projects: SourceProject[] = [];
  for (const row of await db.query("SELECT * FROM accounts_project ORDER BY id")) {
    const label = `project ${integerAt(row, "id", 0)}`;
    try {
      const ownerId = integerAt(row, "owner_id", 0);
      const profile = profiles.get(ownerId) ?? {};
      const project = await readProject(db, row, { ownerEmail: emailOf(ownerId), profile, assigned, skipped, options, s3Column });
      const roles = members
        .filter((m) => integerAt(m, "project_id", 0) === integerAt(row, "id", 0))
        .flatMap((m) => {
          const role = ROLES[textAt(m, "role")];
          if (role === undefined)
            skipped.push({
              kind: "member",
              name: `${emailOf(integerAt(m, "user_id", 0))} in ${project.name}`,
              reason: `an unknown role "${textAt(m, "role").slice(0, 10)}"`,
            });
          return role === undefined ? [] : [{ email: emailOf(integerAt(m, "user_id", 0)), role }];
        });
      projects.push({ ...project, members: [{ email: emailOf(ownerId), role: "owner" }, ...roles] });
      options.progress(`read project "${project.name}": ${project.checks.length} checks, ${project.channels.length} integrations`);
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      skipped.push({ kind: "project", name: label, reason: `its row does not read: ${error.message}` });
    }
  }
  return { projects, users: readUsers(users, profiles, credentials, skipped), skipped };
}

type ProjectContext = {
  readonly ownerEmail: string;
  readonly profile: Row;
  readonly assigned: ReadonlyMap<number, readonly number[]>;
  readonly skipped: Skipped[];
  readonly options: DbImportOptions;
  readonly s3Column: boolean; // api_ping has object_size (bodies kept in S3)
};

async function readProject(db: ReferenceDb, row: Row, context: ProjectContext): Promise<Omit<SourceProject, "members">> {
  const { skipped, options } = context;
  const id = uuidAt(row, "code");
  const given = textAt(row, "name");
  const name = [...(given === "" ? context.ownerEmail : given)].slice(0, 100).join("");
  if ([...given].length > 100) skipped.push({ kind: "project", name, reason: "its name is cut to 100 characters" });
  const create: Record<string, unknown> = {
    name,
    check_limit: Math.min(Math.max(integerAt(context.profile, "check_limit", 20), 1), 1_000_000),
    ping_log_limit: Math.min(Math.max(integerAt(context.profile, "ping_log_limit", 100), 1), 1_000_000),
  };
  const pingKey = textAt(row, "ping_key");
  if (PING_KEY.test(pingKey)) create.ping_key = pingKey;
  else if (pingKey !== "")
    skipped.push({ kind: "project", name, reason: "its ping key is not kept (not a key hcd takes): slug URLs need the new one" });
  const hashed: Record<string, string | null> = { api_key: null, api_key_readonly: null };
  for (const [column, label] of [
    ["api_key", "read-write"],
    ["api_key_readonly", "read-only"],
  ] as const) {
    const stored = textAt(row, column);
    if (stored === "")
      create[column] = ""; // none there: none here
    else if (HASHED_KEY.test(stored)) {
      if (options.secretKey === null)
        skipped.push({
          kind: "api key",
          name: `${name} ${label}`,
          reason: "stored hashed: give --secret-key (its SECRET_KEY) to keep it; it gets a new key",
        });
      else {
        hashed[column] = stored;
        create[column] = "";
      }
    } else if (PLAIN_KEY.test(stored)) create[column] = stored;
    else skipped.push({ kind: "api key", name: `${name} ${label}`, reason: "not a key hcd takes: it gets a new key" });
  }
  if (options.secretKey !== null && (hashed.api_key !== null || hashed.api_key_readonly !== null))
    create.hashed_api_keys = { secret_key: options.secretKey, ...hashed };

  const projectRowId = integerAt(row, "id", 0);
  const channels: SourceChannel[] = [];
  const channelIds = new Map<number, string>();
  for (const channelRow of await db.query("SELECT * FROM api_channel WHERE project_id = ? ORDER BY id", [projectRowId])) {
    try {
      const channel = readChannel(channelRow);
      if ("skip" in channel) {
        skipped.push({ kind: "channel", name: channel.label, reason: channel.skip });
        continue;
      }
      channels.push(channel);
      channelIds.set(integerAt(channelRow, "id", 0), channel.id);
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      skipped.push({
        kind: "channel",
        name: `integration ${integerAt(channelRow, "id", 0)} of ${name}`,
        reason: `its row does not read: ${error.message}`,
      });
    }
  }
  const pingLimit = create.ping_log_limit as number;
  const checks: SourceCheck[] = [];
  for (const checkRow of await db.query("SELECT * FROM api_check WHERE project_id = ? ORDER BY id", [projectRowId])) {
    try {
      checks.push(
        await readCheck(db, checkRow, {
          channelIds,
          assigned: context.assigned.get(integerAt(checkRow, "id", 0)) ?? [],
          pingLimit,
          s3Column: context.s3Column,
        }),
      );
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      skipped.push({
        kind: "check",
        name: `check ${integerAt(checkRow, "id", 0)} of ${name}`,
        reason: `its row does not read: ${error.message}`,
      });
    }
  }
  create.check_limit = Math.max(create.check_limit as number, checks.length);
  return { name, id, findByChecks: false, mustExist: false, create, channels, checks };
}

function readChannel(row: Row): SourceChannel | { skip: string; label: string } {
  const kind = textAt(row, "kind", 20);
  const name = textAt(row, "name", 100);
  const label = `${kind} "${name}"`;
  const mapping = channelValueOf(kind, textAt(row, "value"));
  if ("skip" in mapping) return { skip: mapping.skip, label };
  const notes = [...mapping.notes];
  if (kind === "email" && !booleanAt(row, "email_verified", true))
    notes.push("its address was never confirmed there (Healthchecks sent it nothing): hcd sends to it");
  if (booleanAt(row, "disabled", false))
    notes.push("Healthchecks had disabled it after a permanent delivery failure: hcd sends to it again");
  return { id: uuidAt(row, "code"), kind, name, value: mapping.value, notes };
}

type CheckContext = {
  readonly channelIds: ReadonlyMap<number, string>;
  readonly assigned: readonly number[];
  readonly pingLimit: number;
  readonly s3Column: boolean;
};

async function readCheck(db: ReferenceDb, row: Row, context: CheckContext): Promise<SourceCheck> {
  const uuid = uuidAt(row, "code");
  const name = textAt(row, "name", 100);
  const kind = textAt(row, "kind") || "simple";
  const seconds = (column: string) => {
    const ms = durationAt(row, column);
    return ms === null ? null : Math.round(ms / 1000);
  };
  const iso = (column: string) => {
    const at = instantAt(row, column);
    return at === null ? null : new Date(at).toISOString();
  };
  const body: Record<string, unknown> = {
    name,
    slug: textAt(row, "slug", 100),
    tags: textAt(row, "tags", 500),
    desc: textAt(row, "desc"),
    grace: seconds("grace"),
    methods: textAt(row, "methods"),
    manual_resume: booleanAt(row, "manual_resume", false),
    badge_key: optionalUuidAt(row, "badge_key") ?? undefined,
    status: textAt(row, "status"),
    n_pings: integerAt(row, "n_pings", 0),
    last_ping: iso("last_ping"),
    last_start: iso("last_start"),
    last_start_rid: optionalUuidAt(row, "last_start_rid"),
    last_duration: durationAt(row, "last_duration") === null ? null : durationAt(row, "last_duration")! / 1000,
    created: iso("created"),
  };
  if (kind === "simple") body.timeout = seconds("timeout");
  else {
    body.schedule = textAt(row, "schedule");
    body.tz = textAt(row, "tz");
  }
  if ("success_kw" in row) {
    for (const column of ["start_kw", "success_kw", "failure_kw"]) body[column] = textAt(row, column);
    for (const column of ["filter_subject", "filter_body", "filter_http_body", "filter_default_fail"])
      if (column in row) body[column] = booleanAt(row, column, false);
  } else if ("subject" in row) {
    // before keywords had their own fields: the subject filter
    body.subject = textAt(row, "subject");
    body.subject_fail = textAt(row, "subject_fail");
  }
  for (const [field, value] of Object.entries(body))
    if (value === undefined || (value === null && ["grace", "timeout"].includes(field))) delete body[field];
  const flips = (
    await db.query("SELECT * FROM api_flip WHERE owner_id = ? ORDER BY created DESC, id DESC LIMIT ?", [
      integerAt(row, "id", 0),
      FLIPS_KEPT,
    ])
  ).map((flip) => ({
    timestamp: isoAt(flip, "created"),
    from: textAt(flip, "old_status"),
    to: textAt(flip, "new_status"),
    reason: textAt(flip, "reason"),
  }));
  body.flips = flips;
  const notes: string[] = [];
  const inS3 = context.s3Column
    ? integerAt(
        (
          await db.query("SELECT count(*) AS n FROM api_ping WHERE owner_id = ? AND object_size IS NOT NULL", [integerAt(row, "id", 0)])
        )[0] ?? {},
        "n",
        0,
      )
    : 0;
  if (inS3 > 0)
    notes.push(
      `${inS3} of its pings kept their bodies in S3, which is not read: they come without bodies (the API import, --from, brings them)`,
    );
  const channels = context.assigned.flatMap((id) => context.channelIds.get(id) ?? []);
  const checkId = integerAt(row, "id", 0);
  return { uuid, name, body, channels, notes, pings: () => readPings(db, checkId, context.pingLimit) };
}

/** The check's newest pings (at most the log's limit), newest first, in the admin API's form; S3-stored bodies are not there. */
async function readPings(db: ReferenceDb, checkId: number, limit: number): Promise<SourcePing[]> {
  const rows = await db.query("SELECT * FROM api_ping WHERE owner_id = ? AND n IS NOT NULL ORDER BY id DESC LIMIT ?", [checkId, limit]);
  return rows.map((row): SourcePing => {
    const body = bytesAt(row, "body_raw") ?? bytesAt(row, "body");
    const kind = textAt(row, "kind");
    return {
      n: integerAt(row, "n", 0),
      date: isoAt(row, "created"),
      type: kind === "" ? "success" : kind,
      scheme: textAt(row, "scheme"),
      method: textAt(row, "method"),
      remote_addr: textAt(row, "remote_addr").trim(),
      ua: textAt(row, "ua"), // an address in a char(39) copy is padded
      rid: optionalUuidAt(row, "rid"),
      exitstatus: integerAt(row, "exitstatus", null),
      body_base64: body === null || body.length === 0 ? null : Buffer.from(body).toString("base64"),
    };
  });
}

/** The instant in a NOT NULL column as ISO 8601. */
function isoAt(row: Row, column: string): string {
  const at = instantAt(row, column);
  if (at === null) throw new RowError(`${column} is empty`);
  return new Date(at).toISOString();
}

function readUsers(
  users: ReadonlyMap<number, Row>,
  profiles: ReadonlyMap<number, Row>,
  credentials: ReadonlySet<number>,
  skipped: Skipped[],
): SourceUser[] {
  const kept: SourceUser[] = [];
  for (const [id, row] of users) {
    let email: string;
    try {
      email = textAt(row, "email").trim();
      if (!booleanAt(row, "is_active", true)) {
        skipped.push({ kind: "user", name: email, reason: "inactive there" });
        continue;
      }
      if (email === "") {
        skipped.push({ kind: "user", name: `user ${id}`, reason: "no email" });
        continue;
      }
      const hash = textAt(row, "password");
      const problem = djangoHashProblem(hash);
      if (problem !== null)
        skipped.push({
          kind: "user",
          name: email,
          reason: `password not kept (${problem}): they set one through "Forgot password" or sign in with SSO`,
        });
      if (booleanAt(row, "is_superuser", false))
        skipped.push({
          kind: "user",
          name: email,
          reason: "a superuser there: hcd's instance administration is the operator's (ADMIN_TOKEN)",
        });
      const totp = textAt(profiles.get(id) ?? {}, "totp");
      if (totp !== "" || credentials.has(id))
        skipped.push({
          kind: "user",
          name: email,
          reason: "their second factor (TOTP or security key) is not carried: they turn it on again in hcd",
        });
      kept.push({ email, passwordHash: problem === null ? hash : null });
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      skipped.push({ kind: "user", name: `user ${id}`, reason: `its row does not read: ${error.message}` });
    }
  }
  return kept;
}
