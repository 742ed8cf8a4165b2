// What a client may set on a check (create, update, import), already validated and in engine units; the
// fields a create may match an existing check on (unique).
import type { Millis } from "./units.ts";

/** The fields of a check a client may set (create/update), already validated, in engine units. */
export type CheckSpec = {
  readonly name?: string;
  readonly slug?: string;
  readonly tags?: string;
  readonly desc?: string;
  readonly timeoutMs?: Millis;
  readonly graceMs?: Millis;
  readonly schedule?: string; // non-empty; decides kind (cron/oncalendar) on write
  readonly tz?: string; // canonical zone name
  readonly manualResume?: boolean;
  readonly methods?: "" | "POST";
  readonly startKw?: string;
  readonly successKw?: string;
  readonly failureKw?: string;
  readonly filterSubject?: boolean;
  readonly filterBody?: boolean;
  readonly filterHttpBody?: boolean;
  readonly filterDefaultFail?: boolean;
  readonly failureThreshold?: number;
  readonly reminderIntervalMs?: Millis; // 0 = off
  readonly mutedUntilAt?: Millis | null;
  readonly maxDurationMs?: Millis; // 0 = off
  readonly dependsOn?: readonly string[]; // check uuids, validated by the shard (same project, no cycle); [] = none
  readonly pushToken?: string | null; // null = none; unique over every project, which the pool judges
  readonly minDurationMs?: Millis; // 0 = off
  readonly alertOnOverlap?: boolean;
  readonly maxRunsPerPeriod?: number; // 0 = off
  /** Steps with channel references (ids or names), resolved by the shard; [] = none; null = the project's policy. */
  readonly escalation?: readonly EscalationSpecStep[] | null;
  /** "*" = all channels; otherwise ids or names, resolved by the shard; [] = none. */
  readonly channels?: { readonly all: true } | { readonly refs: readonly string[] };
};

/** An escalation step as a client gives it: its channels by id or name, resolved by the shard. */
export type EscalationSpecStep = {
  readonly afterMs: Millis;
  readonly channels: { readonly all: true } | { readonly refs: readonly string[] };
};

export const UNIQUE_FIELDS = ["name", "slug", "tags", "timeout", "grace"] as const;
export type UniqueField = (typeof UNIQUE_FIELDS)[number];
