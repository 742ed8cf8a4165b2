// A small executable model of the reference's status rules, written from the fact sheet
// (research/healthchecks-ping.md §2-5, §7-8) and the contract, not from the engine: what a ping means,
// what it does to status, last_ping, n_pings and the open run, when a check goes down, which flips
// are recorded when, and which of them notify under a check's mute (muted_until). The property tests run the same random histories through it and through hcd and
// compare the two after every step; fast-check's arbitraries for those histories live here too.
import fc from "fast-check";
import type { CheckSpec, Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, SECOND } from "../../engine/model.ts";

export const T0 = Date.UTC(2026, 0, 1);
export const RIDS = ["6a1b7c38-4d2e-4f10-9a3b-0c5d6e7f8091", "0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b"] as const;
const SUCCESS_KW = "ok, fine",
  FAILURE_KW = "bad",
  START_KW = "go";

/** One step of a history: a ping, a settings change, a pause or resume, or the clock moving on. */
export type Step =
  | {
      readonly kind: "ping";
      readonly check: number;
      readonly signal: PingSignal;
      readonly exitStatus: number | null;
      readonly rid: string | null;
      readonly method: "GET" | "POST";
      readonly body: string;
    }
  | { readonly kind: "update"; readonly check: number; readonly spec: CheckSpec }
  | { readonly kind: "pause" | "resume"; readonly check: number }
  | { readonly kind: "mute"; readonly check: number; readonly forMs: Millis | null } // muted_until = now + forMs; null clears it
  | { readonly kind: "advance"; readonly ms: Millis };

/** A flip and its reason: "" (a success, pause or resume), "timeout", "fail", "too_fast", "overlap", "too_often". */
export type ModelFlip = readonly [at: Millis, from: ModelStatus, to: ModelStatus, reason: string];
type ModelStatus = "new" | "up" | "down" | "paused";

type Settings = {
  timeoutMs: Millis;
  graceMs: Millis;
  cron: string | null;
  tz: string;
  methods: "" | "POST";
  manualResume: boolean;
  successKw: string;
  failureKw: string;
  startKw: string;
  filterHttpBody: boolean;
  filterDefaultFail: boolean;
  failureThreshold: number;
  minDurationMs: Millis; // 0 = off
  alertOnOverlap: boolean;
  maxRunsPerPeriod: number; // 0 = off
};

/** One check as the reference keeps it, plus what hcd adds: the failure count and the last recorded instant. */
export type ModelCheck = {
  settings: Settings;
  status: ModelStatus;
  nPings: number;
  lastPingAt: Millis | null;
  lastStartAt: Millis | null;
  lastStartRid: string | null;
  failures: number; // failure signals since the last success (failure_threshold)
  // max_runs_per_period: the current period's end and the successes counted in it (null: none counted)
  period: { endAt: Millis; runs: number } | null;
  notes: (string | null)[]; // each ping's note as the contract names it: "overlap", "too_fast", "too_often", or none
  lastEventAt: Millis; // the latest ping or flip recorded: nothing is stamped before it (contract)
  // hcd's own downtime its deadline fell in (contract "hcd's own downtime and clock"): not judged down
  // before the downtime's end plus its grace; ended by its next flip or success or failure signal
  heldUntilDowntimeEnd: Millis | null;
  flips: ModelFlip[];
  mutedUntilAt: Millis | null;
  // a down flip the mute kept silent: notified once when no mute holds it any more, never if the outage ended first
  downHeld: boolean;
  notices: ("down" | "up")[]; // what the check's integrations heard, in order
};

// Fixed-offset zones only: the model then needs no DST rules (the engine's schedule tests cover those).
const OFFSET_MINUTES: Record<string, number> = { UTC: 0, "Asia/Kolkata": 330, "Asia/Kathmandu": 345 };

/** The first instant strictly after `afterAt` (to the second, as cronsim) matching a "M * * * *" or "*\/N * * * *" line. */
export function nextCronAt(cron: string, tz: string, afterAt: Millis): Millis {
  const minuteField = cron.split(" ")[0];
  const step = minuteField.startsWith("*/") ? Number(minuteField.slice(2)) : null;
  const offset = OFFSET_MINUTES[tz];
  const startAt = Math.floor(afterAt / SECOND) * SECOND + SECOND;
  for (let at = Math.ceil(startAt / MINUTE) * MINUTE; ; at += MINUTE) {
    const localMinute = (((at / MINUTE + offset) % 60) + 60) % 60;
    if (step !== null ? localMinute % step === 0 : localMinute === Number(minuteField)) return at;
  }
}

/** The model: checks created at T0 with the given specs, a clock, and every rule applied by hand. */
export class ReferenceModel {
  now: Millis = T0;
  readonly checks: ModelCheck[];

  constructor(specs: readonly CheckSpec[]) {
    this.checks = specs.map((spec) => {
      const settings: Settings = {
        timeoutMs: DAY,
        graceMs: HOUR,
        cron: null,
        tz: "UTC",
        methods: "",
        manualResume: false,
        successKw: "",
        failureKw: "",
        startKw: "",
        filterHttpBody: false,
        filterDefaultFail: false,
        failureThreshold: 1,
        minDurationMs: 0,
        alertOnOverlap: false,
        maxRunsPerPeriod: 0,
      };
      const check: ModelCheck = {
        settings,
        status: "new",
        nPings: 0,
        lastPingAt: null,
        lastStartAt: null,
        lastStartRid: null,
        failures: 0,
        period: null,
        notes: [],
        lastEventAt: T0,
        heldUntilDowntimeEnd: null,
        flips: [],
        mutedUntilAt: null,
        downHeld: false,
        notices: [],
      };
      update(check, spec);
      return check;
    });
  }

  /** Applies a step at the model's clock; false when the reference refuses it (resume of a check not paused). */
  apply(step: Step): boolean {
    if (step.kind === "advance") {
      this.now += step.ms;
      for (const check of this.checks) this.#catchUp(check);
      return true;
    }
    const check = this.checks[step.check];
    this.#catchUp(check); // deadlines due before a command are applied first, each at its own time
    switch (step.kind) {
      case "ping":
        ping(check, step, this.now);
        return true;
      case "update":
        update(check, step.spec);
        this.#catchUp(check, this.now); // a deadline the change moved into the past falls due at the change
        return true;
      case "pause":
        if (check.status === "paused") return true; // a no-op, no flip
        check.lastStartAt = null;
        check.lastStartRid = null;
        flip(check, "paused", this.now, "");
        return true;
      case "resume":
        if (check.status !== "paused") return false; // 409 not_paused
        check.lastPingAt = null;
        check.lastStartAt = null;
        check.lastStartRid = null;
        flip(check, "new", this.now, "");
        return true;
      case "mute":
        check.mutedUntilAt = step.forMs === null ? null : this.now + step.forMs;
        muteEnds(check, this.now);
        return true;
    }
  }

  /**
   * hcd stops at the model's clock and starts again `gapMs` later, having judged nothing in between. A
   * check not down or paused whose deadline fell in the gap is held: judged once its grace has passed
   * since the start. Then every deadline due by the start is applied.
   */
  restart(gapMs: Millis = 0): void {
    const fromAt = this.now;
    this.now += gapMs;
    for (const check of this.checks) {
      if (gapMs === 0 || check.status === "down" || check.status === "paused") continue;
      const dueAt = goingDownAfter(check); // an earlier downtime's hold included
      if (dueAt !== null && dueAt > fromAt && dueAt <= this.now) check.heldUntilDowntimeEnd = this.now;
    }
    for (const check of this.checks) this.#catchUp(check);
  }

  /** The status the API shows at the model's clock (v3 get_status), "grace" included. */
  apiStatus(index: number): ModelStatus | "grace" {
    const check = this.checks[index];
    const status = this.#statusIgnoringDowntime(check);
    const heldUntil = heldUntilAt(check);
    return status === "down" && check.status !== "down" && heldUntil !== null && this.now < heldUntil ? "grace" : status;
  }

  #statusIgnoringDowntime(check: ModelCheck): ModelStatus | "grace" {
    const { graceMs } = check.settings;
    if (check.lastStartAt !== null && this.now >= check.lastStartAt + graceMs) return "down";
    if (check.status !== "up") return check.status;
    const graceStartAt = expectedAt(check);
    if (graceStartAt === null || this.now < graceStartAt) return "up";
    return this.now < graceStartAt + graceMs ? "grace" : "down";
  }

  /** sendalerts: a check whose going_down_after has passed and that get_status calls down is stored down. */
  #catchUp(check: ModelCheck, notBeforeAt = -Infinity): void {
    const downAt = goingDownAfter(check);
    // The reference stamps the flip at going_down_after; the contract: never before anything recorded, and
    // a deadline a settings change moved into the past is stamped at the change (`notBeforeAt`).
    if (downAt !== null && downAt <= this.now) flip(check, "down", Math.max(downAt, check.lastEventAt, notBeforeAt), "timeout");
    muteEnds(check, this.now);
  }
}

/** Notifications beyond the flips: a down flip a mute kept silent is heard once no mute holds it (an outage notified before a mute never again). */
function muteEnds(check: ModelCheck, at: Millis): void {
  if (!check.downHeld || isMutedAt(check, at)) return;
  check.downHeld = false;
  if (check.status === "down") check.notices.push("down");
}

function isMutedAt(check: ModelCheck, at: Millis): boolean {
  return check.mutedUntilAt !== null && at < check.mutedUntilAt;
}

/** Returns the next expected ping of a stored-up check (timeout or schedule), else null (get_grace_start without a run). */
function expectedAt(check: ModelCheck): Millis | null {
  if (check.status !== "up" || check.lastPingAt === null) return null;
  const { cron, tz, timeoutMs } = check.settings;
  return cron === null ? check.lastPingAt + timeoutMs : nextCronAt(cron, tz, check.lastPingAt);
}

/** going_down_after(): the grace start counting an open run (unless down), plus grace, no earlier than a downtime's hold; null = never. */
function goingDownAfter(check: ModelCheck): Millis | null {
  let startAt = expectedAt(check);
  if (check.lastStartAt !== null && check.status !== "down")
    startAt = startAt === null ? check.lastStartAt : Math.min(startAt, check.lastStartAt);
  if (startAt === null) return null;
  const heldUntil = heldUntilAt(check);
  return heldUntil === null ? startAt + check.settings.graceMs : Math.max(startAt + check.settings.graceMs, heldUntil);
}

/** The end of a downtime the check's deadline fell in plus its grace (as it is now), or null when none holds it. */
function heldUntilAt(check: ModelCheck): Millis | null {
  return check.heldUntilDowntimeEnd === null ? null : check.heldUntilDowntimeEnd + check.settings.graceMs;
}

function flip(check: ModelCheck, to: ModelStatus, at: Millis, reason: string): void {
  if (check.status === to) return;
  // a flip to down notifies, and one to up from down; while muted nothing is heard, and a silent down waits for the mute's end
  const notifies = to === "down" || (to === "up" && check.status === "down");
  if (notifies && !isMutedAt(check, at)) check.notices.push(to === "down" ? "down" : "up");
  check.downHeld = to === "down" && isMutedAt(check, at);
  check.flips.push([at, check.status, to, reason]);
  check.status = to;
  check.heldUntilDowntimeEnd = null; // any flip ends a downtime's hold
  check.lastEventAt = Math.max(check.lastEventAt, at);
}

function keywordsMatch(text: string, csv: string): boolean {
  for (const item of csv.split(",")) if (item.trim() !== "" && text.includes(item.trim())) return true;
  return false;
}

/** Fact sheet §2 steps 6-8 and §3: exit status, POST only, keywords (replacing the URL's meaning), manual resume. */
function kindOf(check: ModelCheck, step: Extract<Step, { kind: "ping" }>): string {
  const s = check.settings;
  let kind: string = step.signal;
  if (step.exitStatus !== null) kind = step.exitStatus > 0 ? "fail" : "success";
  if (s.methods === "POST" && step.method !== "POST") kind = "ign";
  if (kind !== "ign" && s.filterHttpBody) {
    const body = step.method === "POST" ? step.body : "";
    if (keywordsMatch(body, s.failureKw)) kind = "fail";
    else if (keywordsMatch(body, s.successKw)) kind = "success";
    else if (keywordsMatch(body, s.startKw)) kind = "start";
    else kind = s.filterDefaultFail ? "fail" : "ign";
  }
  return check.status === "paused" && s.manualResume ? "ign" : kind;
}

/**
 * Check.ping (fact sheet §3 table), with failure_threshold (contract): down on the N-th consecutive failure;
 * and the run rules (contract "Alerting, third part"): a start while a run is open is an overlap; a success
 * is too fast when it ends its own open run (the same rid, or both none) sooner than min_duration after its
 * start, an overlap when it names another run than the open one, too often when it is the period's
 * (max_runs_per_period + 1)-th success or later. Too fast and too often count as a failure, an overlap only
 * under alert_on_overlap.
 */
function ping(check: ModelCheck, step: Extract<Step, { kind: "ping" }>, at: Millis): void {
  const kind = kindOf(check, step);
  const s = check.settings;
  check.nPings += 1;
  check.lastEventAt = Math.max(check.lastEventAt, at);
  if (kind === "start") {
    const overlap = check.lastStartAt !== null;
    check.lastStartAt = at;
    check.lastStartRid = step.rid;
    check.notes.push(overlap ? "overlap" : null);
    if (overlap && s.alertOnOverlap) failure(check, at, "overlap");
    return;
  }
  check.notes.push(null);
  if (kind !== "success" && kind !== "fail") return;
  let rule: string | null = null;
  if (kind === "success") {
    const ownRun = check.lastStartAt !== null && check.lastStartRid === step.rid;
    const otherRun = check.lastStartAt !== null && !ownRun && step.rid !== null;
    const tooFast = s.minDurationMs > 0 && ownRun && at - (check.lastStartAt ?? at) < s.minDurationMs;
    let tooOften = false;
    if (s.maxRunsPerPeriod === 0) check.period = null;
    else {
      if (check.period !== null && at < check.period.endAt) check.period.runs += 1;
      else check.period = { endAt: periodEnd(check, at), runs: 1 };
      tooOften = check.period.runs > s.maxRunsPerPeriod;
    }
    const note = tooFast ? "too_fast" : tooOften ? "too_often" : otherRun ? "overlap" : null;
    check.notes[check.notes.length - 1] = note;
    rule = tooFast ? "too_fast" : tooOften ? "too_often" : otherRun && s.alertOnOverlap ? "overlap" : null;
  }
  check.heldUntilDowntimeEnd = null; // the deadlines count from this signal again
  check.lastPingAt = at;
  if (check.lastStartAt !== null && (check.lastStartRid === step.rid || kind === "fail" || step.rid === null)) {
    check.lastStartAt = null;
    check.lastStartRid = null;
  }
  if (kind === "success" && rule === null) {
    check.failures = 0;
    flip(check, "up", at, "");
    return;
  }
  failure(check, at, rule ?? "fail");
}

/** A signal that counts as a failure: every one counts, whatever the threshold was when it came. */
function failure(check: ModelCheck, at: Millis, reason: string): void {
  check.failures += 1;
  if (check.failures >= check.settings.failureThreshold) flip(check, "down", at, reason);
}

/** The end of a period of max_runs_per_period that a success at `at` starts: the schedule's next time, or timeout less grace (at least half the timeout). */
function periodEnd(check: ModelCheck, at: Millis): Millis {
  const { cron, tz, timeoutMs, graceMs } = check.settings;
  return cron === null ? at + timeoutMs - Math.min(graceMs, timeoutMs / 2) : nextCronAt(cron, tz, at);
}

/** An API update: a schedule makes the check cron, a timeout (without one) makes it simple; status stays. */
function update(check: ModelCheck, spec: CheckSpec): void {
  const s = check.settings;
  if (spec.schedule !== undefined) s.cron = spec.schedule;
  else if (spec.timeoutMs !== undefined) s.cron = null;
  if (spec.timeoutMs !== undefined) s.timeoutMs = spec.timeoutMs;
  s.graceMs = spec.graceMs ?? s.graceMs;
  s.tz = spec.tz ?? s.tz;
  s.methods = spec.methods ?? s.methods;
  s.manualResume = spec.manualResume ?? s.manualResume;
  s.successKw = spec.successKw ?? s.successKw;
  s.failureKw = spec.failureKw ?? s.failureKw;
  s.startKw = spec.startKw ?? s.startKw;
  s.filterHttpBody = spec.filterHttpBody ?? s.filterHttpBody;
  s.filterDefaultFail = spec.filterDefaultFail ?? s.filterDefaultFail;
  s.failureThreshold = spec.failureThreshold ?? s.failureThreshold;
  s.minDurationMs = spec.minDurationMs ?? s.minDurationMs;
  s.alertOnOverlap = spec.alertOnOverlap ?? s.alertOnOverlap;
  s.maxRunsPerPeriod = spec.maxRunsPerPeriod ?? s.maxRunsPerPeriod;
}

// ---- histories (fast-check arbitraries) ----

/** A settings change: any subset of the fields the model knows, in engine units. */
export const specArb: fc.Arbitrary<CheckSpec> = fc.record(
  {
    timeoutMs: fc.constantFrom(MINUTE, 5 * MINUTE, HOUR, DAY),
    graceMs: fc.constantFrom(MINUTE, 10 * MINUTE, HOUR),
    schedule: fc.constantFrom("*/5 * * * *", "*/15 * * * *", "0 * * * *", "30 * * * *"),
    tz: fc.constantFrom("UTC", "Asia/Kolkata", "Asia/Kathmandu"),
    methods: fc.constantFrom("" as const, "POST" as const),
    manualResume: fc.boolean(),
    successKw: fc.constantFrom("", SUCCESS_KW),
    failureKw: fc.constantFrom("", FAILURE_KW),
    startKw: fc.constantFrom("", START_KW),
    filterHttpBody: fc.boolean(),
    filterDefaultFail: fc.boolean(),
    failureThreshold: fc.integer({ min: 1, max: 3 }),
    minDurationMs: fc.constantFrom(0, 30 * SECOND, 2 * MINUTE, HOUR),
    alertOnOverlap: fc.boolean(),
    maxRunsPerPeriod: fc.constantFrom(0, 1, 2),
  },
  { requiredKeys: [] },
);

const bodyArb = fc.constantFrom("", "all ok", "  fine ", "bad run", "go", "bad but ok", "okay go", "nothing", "Bad OK");

/** One step on one of `checks` checks; clock moves are small (seconds, to the millisecond) or large (hours, days). */
export function stepArb(checks: number): fc.Arbitrary<Step> {
  const check = fc.integer({ min: 0, max: checks - 1 });
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("ping" as const),
        check,
        signal: fc.constantFrom<PingSignal>("success", "start", "fail", "log"),
        exitStatus: fc.option(fc.oneof(fc.constantFrom(0, 1, 255), fc.integer({ min: 0, max: 255 })), { freq: 3 }),
        rid: fc.constantFrom(null, ...RIDS),
        method: fc.constantFrom("GET" as const, "POST" as const),
        body: bodyArb,
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("advance" as const),
        ms: fc.oneof(fc.integer({ min: 0, max: 3 * MINUTE }), fc.integer({ min: HOUR, max: 3 * DAY })),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("update" as const), check, spec: specArb }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("pause" as const, "resume" as const), check }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("mute" as const), check, forMs: fc.constantFrom(null, MINUTE, HOUR, DAY) }) },
  );
}
