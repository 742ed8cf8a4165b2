// engine/simulate.ts on its own: which settings the simulated check gets, and runs, starts and
// exit statuses replayed from the log (the HTTP tests cover the endpoint around it).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { HOUR, MINUTE, SECOND } from "../../engine/model.ts";
import type { LoggedPing, SimulationInput } from "../../engine/simulate.ts";
import { simulate, simulatedSpec } from "../../engine/simulate.ts";
import { check, project } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);
const logged = (at: number, extra: Partial<LoggedPing> = {}): LoggedPing => ({
  at,
  kind: "success",
  scheme: "http",
  method: "GET",
  rid: null,
  exitStatus: null,
  body: null,
  ...extra,
});

test("the simulated spec keeps the check's rules and takes the candidate period as an update would", () => {
  const cron = check({
    kind: "cron",
    schedule: "0 3 * * *",
    tz: "Europe/Riga",
    timeoutMs: HOUR,
    graceMs: 5 * MINUTE,
    filterHttpBody: true,
    successKw: "OK",
    methods: "POST",
    manualResume: true,
  });
  const rules = {
    manualResume: true,
    methods: "POST",
    startKw: "",
    successKw: "OK",
    failureKw: "",
    filterSubject: false,
    filterBody: false,
    filterHttpBody: true,
    filterDefaultFail: false,
    failureThreshold: 1,
    maxDurationMs: 0,
    minDurationMs: 0,
    alertOnOverlap: false,
    maxRunsPerPeriod: 0,
  };
  assert.equal(simulatedSpec(cron, {}), { schedule: "0 3 * * *", graceMs: 5 * MINUTE, tz: "Europe/Riga", ...rules });
  // a timeout alone turns it into a simple check; a tz alone keeps the schedule
  assert.equal(simulatedSpec(cron, { timeoutMs: 2 * HOUR }), { timeoutMs: 2 * HOUR, graceMs: 5 * MINUTE, tz: "Europe/Riga", ...rules });
  assert.equal(simulatedSpec(cron, { tz: "UTC", graceMs: MINUTE }), { schedule: "0 3 * * *", graceMs: MINUTE, tz: "UTC", ...rules });
  // a schedule wins over a timeout given with it, as in an update
  const simple = check({ timeoutMs: HOUR });
  assert.equal(simulatedSpec(simple, { schedule: "*/5 * * * *", timeoutMs: 2 * HOUR }).schedule, "*/5 * * * *");
  assert.is(simulatedSpec(simple, { schedule: "*/5 * * * *", timeoutMs: 2 * HOUR }).timeoutMs, undefined);
  // the failure threshold: the candidate's, else the check's own
  assert.is(simulatedSpec(check({ failureThreshold: 4 }), {}).failureThreshold, 4);
  assert.is(simulatedSpec(check({ failureThreshold: 4 }), { failureThreshold: 2 }).failureThreshold, 2);
  // max_duration likewise
  assert.is(simulatedSpec(check({ maxDurationMs: HOUR }), {}).maxDurationMs, HOUR);
  assert.is(simulatedSpec(check({ maxDurationMs: HOUR }), { maxDurationMs: 2 * HOUR }).maxDurationMs, 2 * HOUR);
});

const base = (extra: Partial<SimulationInput>): SimulationInput => ({
  check: check({ timeoutMs: HOUR, graceMs: MINUTE, status: "down", nPings: 99, lastPingAt: T0 - HOUR }),
  project: project(),
  pings: [],
  pauses: [],
  settings: {},
  sinceAt: T0,
  untilAt: T0 + 10 * HOUR,
  ...extra,
});

test("a run that outlives its grace goes down at start + grace; an exit status 2 is a failure", () => {
  const pings = [
    logged(T0),
    logged(T0 + 30 * MINUTE, { kind: "start", rid: "11111111-1111-4111-8111-111111111111" }),
    logged(T0 + 34 * MINUTE, { kind: "success", rid: "11111111-1111-4111-8111-111111111111" }), // a 4 min run, inside the grace
    logged(T0 + 50 * MINUTE, { kind: "start" }), // never finishes: down at 50 min + grace
    logged(T0 + 2 * HOUR, { kind: "fail", exitStatus: 2 }),
    logged(T0 + 3 * HOUR, { kind: "success", exitStatus: 0 }),
  ];
  const result = simulate(base({ pings: [...pings].reverse(), settings: { graceMs: 5 * MINUTE }, untilAt: T0 + 3 * HOUR + 30 * MINUTE }));
  assert.ok(result.ok);
  assert.equal(result.value.flips, [
    { at: T0, up: 1 },
    { at: T0 + 55 * MINUTE, up: 0 }, // the open run's grace ran out
    { at: T0 + 3 * HOUR, up: 1 }, // the exit-status-2 failure changed nothing: it was down already
  ]);
  assert.is(result.value.downCount, 1);
  assert.is(result.value.downtimeMs, 2 * HOUR + 5 * MINUTE);
});

test("entries outside [since, until] are left out; the live check's state is not used", () => {
  const pings = [logged(T0 - HOUR), logged(T0 + HOUR), logged(T0 + 11 * HOUR)];
  const result = simulate(base({ pings }));
  assert.ok(result.ok);
  // starts new at since (although the live check is down), first ping up, down at 1 h + 1 h + 1 min, open until 10 h
  assert.equal(result.value.flips, [
    { at: T0 + HOUR, up: 1 },
    { at: T0 + 2 * HOUR + MINUTE, up: 0 },
  ]);
  assert.is(result.value.downtimeMs, 10 * HOUR - (2 * HOUR + MINUTE));
  assert.is(result.value.downtimeMs % SECOND, 0);
});

test("a ping exactly at until is replayed, one exactly at since too", () => {
  const result = simulate(base({ pings: [logged(T0), logged(T0 + 10 * HOUR)] }));
  assert.ok(result.ok);
  assert.equal(result.value.flips, [
    { at: T0, up: 1 },
    { at: T0 + HOUR + MINUTE, up: 0 },
    { at: T0 + 10 * HOUR, up: 1 },
  ]);
});

test("pauses and resumes inside [since, until] are replayed at their instants; those outside are not", () => {
  // pinged at 0, paused at 30 min (no down at 1 h 1 min), resumed at 3 h (new: no deadline), pinged at 5 h
  const pings = [logged(T0), logged(T0 + 5 * HOUR)];
  const pauses = [
    { at: T0 - HOUR, paused: true },
    { at: T0 + 30 * MINUTE, paused: true },
    { at: T0 + 3 * HOUR, paused: false },
    { at: T0 + 11 * HOUR, paused: true },
  ];
  const result = simulate(base({ pings, pauses: [...pauses].reverse() }));
  assert.ok(result.ok);
  // the pause and the resume (to new) are flips of their own, shown as not up
  assert.equal(result.value.flips, [
    { at: T0, up: 1 },
    { at: T0 + 30 * MINUTE, up: 0 },
    { at: T0 + 3 * HOUR, up: 0 },
    { at: T0 + 5 * HOUR, up: 1 },
    { at: T0 + 6 * HOUR + MINUTE, up: 0 },
  ]);
  assert.is(result.value.downCount, 1, "a pause is no down flip");
  // without the pauses: down at 1 h 1 min
  const plain = simulate(base({ pings }));
  assert.ok(plain.ok);
  assert.equal(plain.value.flips[1], { at: T0 + HOUR + MINUTE, up: 0 });
});

test("a logged ignored ping is replayed as a log entry: it neither starts nor ends a period", () => {
  const result = simulate(
    base({ pings: [logged(T0), logged(T0 + 50 * MINUTE, { kind: "ign" }), logged(T0 + 90 * MINUTE, { kind: "ign" })] }),
  );
  assert.ok(result.ok);
  assert.equal(result.value.flips, [
    { at: T0, up: 1 },
    { at: T0 + HOUR + MINUTE, up: 0 },
  ]);
});

test("email pings are classified again by the check's subject keywords", () => {
  const mail = (subject: string) => logged(0, { scheme: "email", method: "email", email: { subject, text: "" } });
  const pings = [
    { ...mail("backup OK"), at: T0 },
    { ...mail("backup FAILED"), at: T0 + 10 * MINUTE },
    { ...mail("backup OK"), at: T0 + 20 * MINUTE },
  ];
  const filtering = check({ timeoutMs: HOUR, graceMs: MINUTE, filterSubject: true, successKw: "OK", failureKw: "FAILED" });
  const result = simulate(base({ check: filtering, pings }));
  assert.ok(result.ok);
  assert.equal(result.value.flips, [
    { at: T0, up: 1 },
    { at: T0 + 10 * MINUTE, up: 0 },
    { at: T0 + 20 * MINUTE, up: 1 },
    { at: T0 + 80 * MINUTE + MINUTE, up: 0 },
  ]);
});

test("a history replayed under the project's maintenance windows: the notifications sent, and the down ones the windows held", () => {
  // hourly pings, 1 min grace; windows at 02:00 and 08:00 UTC for 2 hours each
  const maintenance = [
    {
      id: "11111111-2222-4333-8444-555555555555",
      name: "twice a day",
      schedule: "0 2,8 * * *",
      tz: "UTC",
      durationMs: 2 * HOUR,
      createdAt: T0 - HOUR,
    },
  ];
  const at = (h: number, m = 0) => T0 + h * HOUR + m * MINUTE;
  const pings = [at(0), at(1, 30), at(5), at(7), at(8, 30)].map((t) => logged(t));
  const input = base({ check: check({ timeoutMs: HOUR, graceMs: MINUTE }), pings, sinceAt: T0, untilAt: at(10, 30) });
  // downs at 01:01, 02:31 (in a window, still down at its end: sent at 04:00), 06:01, 08:01 (up again at 08:30,
  // inside the window: neither sent), 09:31 (sent at 10:00); ups notified at 01:30, 05:00 and 07:00
  const windowed = simulate({ ...input, project: project({ maintenance }) });
  assert.ok(windowed.ok);
  assert.is(windowed.value.downCount, 5);
  assert.equal(windowed.value.notifications, { down: 4, up: 3, reminders: 0, held: 3, escalations: 0 });
  // the same history without windows: every change is notified at once
  const plain = simulate(input);
  assert.ok(plain.ok);
  assert.is(plain.value.downCount, 5);
  assert.equal(plain.value.notifications, { down: 5, up: 4, reminders: 0, held: 0, escalations: 0 });
  assert.equal(plain.value.flips, windowed.value.flips, "windows change what is sent, not the status");
});

test("the check's reminder interval: reminders while down, none inside a window", () => {
  const maintenance = [
    {
      id: "11111111-2222-4333-8444-555555555555",
      name: "night",
      schedule: "0 2 * * *",
      tz: "UTC",
      durationMs: 2 * HOUR,
      createdAt: T0 - HOUR,
    },
  ];
  // down at 00:31 (30 min period, 1 min grace), never pinged again; without windows, reminders every hour from
  // 01:31 to 05:31; with them, 01:31, then the one due at 02:31 falls inside the window (02:00-04:00) and is
  // skipped (the outage was notified: never again as new), and reminders resume an hour after its end: 05:00, 06:00
  const input = base({
    check: check({ timeoutMs: 30 * MINUTE, graceMs: MINUTE, reminderIntervalMs: HOUR }),
    pings: [logged(T0)],
    sinceAt: T0,
    untilAt: T0 + 6 * HOUR + 30 * MINUTE,
  });
  const plain = simulate(input);
  assert.ok(plain.ok);
  assert.equal(plain.value.notifications, { down: 1, up: 0, reminders: 5, held: 0, escalations: 0 }); // 01:31 ... 05:31
  const windowed = simulate({ ...input, project: project({ maintenance }) });
  assert.ok(windowed.ok);
  assert.equal(windowed.value.notifications, { down: 1, up: 0, reminders: 3, held: 0, escalations: 0 });
});
test.run();
