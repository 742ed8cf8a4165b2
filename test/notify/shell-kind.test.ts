// The shell kind: a real command run as written from its argument vector (no shell of its own), the
// check's facts only as environment variables (never substituted into the command: a `sh -c` script
// reads a member's check name as data), its exit status as the delivery's outcome, only with SHELL_ENABLED=true.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hasGivenUp } from "../../engine/changes.ts";
import { check } from "../helpers.ts";
import { tempDir } from "../helpers.ts";
import { parseServiceValue } from "../../notify/kinds/service.ts";
import { shell, splitArguments } from "../../notify/kinds/shell.ts";
import { closeOutboxes, delivererOf, DOWN_AT, entryOf, REMINDER_AT, serviceChannel, settingsAt } from "./service-kinds-fixture.ts";

test.after.each(closeOutboxes);

const dir = tempDir("hcd-shell-");
test.after(() => dir.remove());
// a program that writes its arguments and the facts in its environment to the file named by its first argument
const RECORDER = join(dir.path, "record.mjs");
writeFileSync(
  RECORDER,
  `import { writeFileSync } from "node:fs";
const [out, ...args] = process.argv.slice(2);
const env = Object.fromEntries(["NAME", "CODE", "STATUS", "NOW", "SLUG", "TAGS", "TAG1", "TAG2", "ADMIN_TOKEN"].map((k) => [k, process.env[k] ?? null]));
writeFileSync(out, JSON.stringify({ args, env }));
process.exit(Number(process.env.EXIT_WITH ?? 0));
`,
);
const NODE = `'${process.execPath}'`;
const NAME = "Backup; touch pwned $(id) `id` | tee x";

function shellEntry(cmd: { cmd_down?: string; cmd_up?: string }, direction: "down" | "up" | "reminder") {
  const entry = entryOf(serviceChannel("shell", cmd), direction);
  return { ...entry, check: check({ ...entry.check, name: NAME, slug: "backup", tags: "db nightly" }) };
}

test("a down runs the command as written, the check's facts in its environment only", async () => {
  const out = join(dir.path, "down.json");
  const entry = shellEntry({ cmd_down: `${NODE} ${RECORDER} ${out} "down: the check" --tags` }, "down");
  const { outbox, deliverer } = await delivererOf([entry], "http://127.0.0.1:9");
  await deliverer.deliverDue(DOWN_AT);
  assert.equal(outbox.all(), []);
  const recorded = JSON.parse(readFileSync(out, "utf8"));
  assert.equal(recorded.args, ["down: the check", "--tags"]);
  assert.equal(recorded.env, {
    NAME,
    CODE: "5c3e8a1e-0000-4000-8000-000000000001",
    STATUS: "down",
    NOW: "2020-01-01T01:00:00+00:00",
    SLUG: "backup",
    TAGS: "db nightly",
    TAG1: "db",
    TAG2: "nightly",
    ADMIN_TOKEN: null,
  });
  assert.not.ok(existsSync(join(process.cwd(), "pwned")), "the name's shell syntax ran");
});

test('a sh -c script reads a member\'s check name as data: quoted "$NAME" is the name, never code', async () => {
  const out = join(dir.path, "script.txt");
  const name = `x"; touch '${join(dir.path, "injected")}'; echo "`;
  const entry = { ...shellEntry({ cmd_down: `/bin/sh -c 'printf "%s|%s" "$NAME" "$STATUS" > ${out}'` }, "down") };
  const named = { ...entry, check: check({ ...entry.check, name }) };
  const { outbox, deliverer } = await delivererOf([named], "http://127.0.0.1:9");
  await deliverer.deliverDue(DOWN_AT);
  assert.equal(outbox.all(), [], String(outbox.all()[0]?.lastError));
  assert.is(readFileSync(out, "utf8"), `${name}|down`);
  assert.not.ok(existsSync(join(dir.path, "injected")), "the check's name ran as a command");
});

test("a reminder runs cmd_down with STATUS=down; an up with an empty cmd_up runs nothing and is done", async () => {
  const out = join(dir.path, "reminder.json");
  const cmd = { cmd_down: `${NODE} ${RECORDER} ${out}`, cmd_up: "" };
  const reminder = shellEntry(cmd, "reminder");
  const up = shellEntry(cmd, "up");
  const { outbox, deliverer } = await delivererOf([reminder, up], "http://127.0.0.1:9");
  await deliverer.deliverDue(REMINDER_AT);
  assert.equal(outbox.all(), []);
  assert.is(JSON.parse(readFileSync(out, "utf8")).env.STATUS, "down");
});

test("a non-zero exit status is retried; a missing program is given up; with SHELL_ENABLED off nothing runs", async () => {
  const failing = shellEntry({ cmd_down: `${NODE} -e "process.exit(3)"` }, "down");
  const missing = shellEntry({ cmd_down: "/nonexistent/hcd-alert now" }, "down");
  const { outbox, deliverer } = await delivererOf([failing, missing], "http://127.0.0.1:9", { baseBackoffMs: 1_000 });
  await deliverer.deliverDue(DOWN_AT);
  const retried = outbox.get(failing.id),
    gone = outbox.get(missing.id);
  assert.equal([retried?.lastError, retried?.nextAttemptAt], ["Command returned exit code 3", DOWN_AT + 1_000]);
  assert.ok(gone !== null && hasGivenUp(gone));
  assert.is(gone?.lastError, "Command not found: /nonexistent/hcd-alert");

  const out = join(dir.path, "off.json");
  const off = shellEntry({ cmd_down: `${NODE} ${RECORDER} ${out}` }, "down");
  const disabled = await delivererOf([off], "http://127.0.0.1:9", {
    services: { ...settingsAt("http://127.0.0.1:9"), shellEnabled: false },
  });
  await disabled.deliverer.deliverDue(DOWN_AT);
  assert.is(disabled.outbox.get(off.id)?.lastError, "Cannot build the message: Error: SHELL_ENABLED is not true on this server");
  assert.not.ok(existsSync(out));
});

test("values: refused without SHELL_ENABLED, and a command a shell would be needed for is refused with the field named", () => {
  const off = parseServiceValue("shell", { cmd_down: "/bin/true" });
  assert.equal(off.ok ? null : off.failure, {
    code: "invalid",
    field: "kind",
    reason: "shell notifications are off on this server (SHELL_ENABLED)",
  });
  const on = { ...settingsAt("http://x"), shellEnabled: true };
  for (const [value, field] of [
    [{ cmd_down: "a | b" }, "value.cmd_down"],
    [{ cmd_up: "$NAME x" }, "value.cmd_up"],
    [{ cmd_down: "'open" }, "value.cmd_down"],
    [{ cmd_down: "", cmd_up: "" }, "value"],
    [{ cmd_down: 5 }, "value.cmd_down"],
    [{ cmd_down: "/usr/local/bin/page-oncall $NAME" }, "value.cmd_down"],
    [{ cmd_up: '/bin/notify "$NAME is up"' }, "value.cmd_up"],
  ] as const) {
    const parsed = parseServiceValue("shell", value, on);
    assert.is(parsed.ok ? null : parsed.failure.code === "invalid" && parsed.failure.field, field, JSON.stringify(value));
  }
  assert.equal(parseServiceValue("shell", { cmd_down: " /bin/alert  'a b' ", cmd_up: "" }, on), {
    ok: true,
    value: { cmd_down: "/bin/alert  'a b'", cmd_up: "" },
  });
  // a shell's script reads the facts from its environment: accepted
  assert.ok(parseServiceValue("shell", { cmd_down: `/bin/sh -c 'page-oncall "$NAME"'` }, on).ok);
  assert.equal(splitArguments(`a 'b c' "d \\"e\\" $X" f\\ g ''`), { ok: true, value: ["a", "b c", 'd "e" $X', "f g", ""] });
});

test("the shell kind's help shows a value that is valid JSON, and one the kind accepts", () => {
  const example = shell.help.slice(0, shell.help.indexOf("}:") + 1);
  const value = JSON.parse(example) as Record<string, string>;
  assert.is(value.cmd_down, `/bin/sh -c 'page-oncall "$NAME is $STATUS"'`);
  assert.ok(parseServiceValue("shell", value, { ...settingsAt("http://x"), shellEnabled: true }).ok);
});

test.run();
