// What an import brings over, read from a Healthchecks API or database and already in the admin API's
// terms (app/import/apply.ts writes it), and the summary it prints.

/** Something not brought over (or not whole), and why: listed in the summary's "skipped". */
export type Skipped = { readonly kind: string; readonly name: string; readonly reason: string };

/** The summary printed on stdout: counts of what was created or updated, and what was skipped. */
export type Summary = {
  projects: number;
  checks: number;
  channels: number;
  users: number;
  pings: number;
  flips: number;
  skipped: Skipped[];
};

export function emptySummary(): Summary {
  return { projects: 0, checks: 0, channels: 0, users: 0, pings: 0, flips: 0, skipped: [] };
}

/** A role in a project as hcd names it. */
export type MemberRole = "readonly" | "member" | "manager" | "owner";

/** A channel: with its settings (`value`, as the admin API takes them for `kind`) or a stub needing them (`value` undefined). */
export type SourceChannel = {
  readonly id: string;
  readonly kind: string;
  readonly name: string;
  readonly value?: unknown;
  /** Why the value could not be carried over (the channel then is a stub), or what of it is not kept. */
  readonly notes: readonly string[];
};

/** A past ping in the admin API's form (POST .../pings: n, date, type, ..., body_base64). */
export type SourcePing = Readonly<Record<string, unknown>> & { readonly n: number };

/** A check: the admin API's PUT body (settings, state, flips) and, when history is brought, its pings newest first. */
export type SourceCheck = {
  readonly uuid: string;
  readonly name: string;
  readonly body: Readonly<Record<string, unknown>>;
  /** The channel ids assigned to it where it comes from. */
  readonly channels: readonly string[];
  /** Its past pings, newest first, read when its turn comes (null: none brought). */
  readonly pings: (() => Promise<readonly SourcePing[]>) | null;
  readonly notes: readonly string[];
};

/** A project: how hcd finds it (its id, or the project already holding its checks) and its creation body. */
export type SourceProject = {
  readonly name: string;
  /** The hcd project's id: kept from the source, or the one given or derived. */
  readonly id: string;
  /** True when an earlier import may have put its checks in a project of another id (API import without --project). */
  readonly findByChecks: boolean;
  /** True when the project must exist already (--project). */
  readonly mustExist: boolean;
  /** POST /admin/v1/projects's body when it is made (name, limits, kept keys). */
  readonly create: Readonly<Record<string, unknown>>;
  readonly channels: readonly SourceChannel[];
  readonly checks: readonly SourceCheck[];
  /** Its members by email, the owner included. */
  readonly members: readonly { readonly email: string; readonly role: MemberRole }[];
};

/** A user: their email and their Django password hash (null: none kept). */
export type SourceUser = { readonly email: string; readonly passwordHash: string | null };

/** Everything an import brings, and what it already knows it cannot. */
export type Source = {
  readonly projects: readonly SourceProject[];
  readonly users: readonly SourceUser[];
  readonly skipped: readonly Skipped[];
};

/** Progress lines on stderr. */
export type Progress = (line: string) => void;
