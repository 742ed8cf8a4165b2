// Scenario files with the second part of alerting (CONTRACT "Alerting, second part"): max_duration,
// acknowledgements and maintenance windows replayed by `hcd replay`'s own code, line for line, with the
// outage's notices (reminders, a held down notification) printed in time order with the flips.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { replayLines } from "../app/replay-lines.ts";
import { reasonOf } from "../http/errors.ts";

const at = (hhmm: string) => `2026-06-01T${hhmm}:00.000Z`;
const flip = (time: string, check: string, from: string, to: string, reason: string) =>
  JSON.stringify({ at: at(time), check, flip: { from, to, reason } });
const note = (time: string, check: string, status: string, reminder?: number) =>
  JSON.stringify({
    at: at(time),
    check,
    notification: reminder === undefined ? { channel: "ops", kind: "email", status } : { channel: "ops", kind: "email", status, reminder },
  });

function lines(commands: unknown[]): string[] {
  const out: string[] = [];
  const done = replayLines(
    {
      start: "2026-06-01T00:00:00Z",
      commands: [{ at: 0, do: "channel", kind: "email", name: "ops", value: "ops@example.com" }, ...commands],
    },
    (line) => out.push(line),
  );
  if (!done.ok) throw new Error(reasonOf(done.failure));
  out.pop(); // the digest
  return out;
}

test("max_duration and an acknowledgement: the run goes down, reminders stop after the ack, the up clears it", () => {
  const M = 60;
  assert.equal(
    lines([
      {
        at: 0,
        do: "create",
        check: "backup",
        fields: { timeout: 86_400, grace: 3600, max_duration: 1800, reminder_interval: 3600, channels: "*" },
      },
      { at: 1 * M, do: "ping", check: "backup" },
      { at: 10 * M, do: "ping", check: "backup", signal: "start" },
      { at: 2 * 60 * M, do: "advance" },
      { at: 2 * 60 * M + 5 * M, do: "acknowledge", check: "backup" },
      { at: 5 * 60 * M, do: "ping", check: "backup" },
      { at: 5 * 60 * M + M, do: "acknowledge", check: "backup" },
    ]),
    [
      flip("00:01", "backup", "new", "up", ""),
      flip("00:40", "backup", "up", "down", "duration"),
      note("00:40", "backup", "down"),
      note("01:40", "backup", "down", 1),
      flip("05:00", "backup", "down", "up", ""),
      note("05:00", "backup", "up"),
      JSON.stringify({ at: at("05:01"), command: 7, refused: "check is not down" }),
    ],
  );
});

test("a maintenance window: a down inside it is notified once at its end", () => {
  assert.equal(
    lines([
      { at: 0, do: "maintenance", name: "nightly", schedule: "0 2 * * *", tz: "UTC", duration: 7200 },
      { at: 0, do: "create", check: "db", fields: { timeout: 86_400, grace: 3600, channels: "*" } },
      { at: 3600, do: "ping", check: "db" },
      { at: 9000, do: "ping", check: "db", signal: "fail" },
      { at: 5 * 3600, do: "advance" },
    ]),
    [flip("01:00", "db", "new", "up", ""), flip("02:30", "db", "up", "down", "fail"), note("04:00", "db", "down")],
  );
});

test("a scenario's bad maintenance window names its command and field", () => {
  const done = replayLines(
    { start: "2026-06-01T00:00:00Z", commands: [{ at: 0, do: "maintenance", schedule: "0 2 * * *", duration: 10 }] },
    () => {},
  );
  assert.ok(!done.ok);
  if (!done.ok) assert.match(reasonOf(done.failure), /commands\[0\].*duration/);
});

test.run();
