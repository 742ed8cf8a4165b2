// The kinds of notify/kinds/ through the admin API and `hcd channel add`: each value checked (400 with
// {"error"} naming the field), the reference's kind names in /api/v3/channels/, and no secret in any answer.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { runCli } from "../../app/cli.ts";
import { tempDir } from "../helpers.ts";
import { withApi } from "./harness.ts";

type Json = Record<string, unknown>;

const SECRETS = [
  "github-secret-1",
  "trello-secret-1",
  "zulip-secret-1",
  "pushbullet-secret-1",
  "pd-secret-key-1",
  "po-secret-user-1",
  "gotify-secret-1",
  "opsgenie-secret-1",
  "hooks.example/secret-path-1",
];

const VALID: [kind: string, value: unknown][] = [
  ["telegram", { chat_id: -1001234 }],
  ["telegram", { chat_id: "@ops_alerts", thread_id: 7 }],
  ["msteamsw", "https://hooks.example/secret-path-1"],
  ["pd", { service_key: "pd-secret-key-1" }],
  ["po", { user_key: "po-secret-user-1", priority: 2, priority_up: -3 }],
  ["gotify", { url: "https://gotify.example", token: "gotify-secret-1" }],
  ["matrix", { room_id: "!abc:matrix.example" }],
  ["signal", { value: "+15551234567", up: true, down: false }],
  ["googlechat", { url: "https://chat.googleapis.com/v1/spaces/x/messages" }],
  ["opsgenie", { key: "opsgenie-secret-1", region: "eu" }],
  ["mattermost", "https://mm.example/hooks/x"],
  ["rocketchat", { url: "https://rc.example/hooks/x" }],
  ["zulip", { bot_email: "bot@org.zulipchat.com", api_key: "zulip-secret-1", mtype: "stream", to: "ops", topic: "alerts" }],
  ["pushbullet", { token: "pushbullet-secret-1" }],
  ["victorops", "https://alert.victorops.com/integrations/generic/x"],
  ["pagertree", "https://api.pagertree.com/integration/int_x"],
  ["spike", "https://hooks.spike.sh/x"],
  ["sms", "+1 555 123 4567"],
  ["whatsapp", { phone: "+445551234567", notify_up: false }],
  ["call", { phone: "+15551234567" }],
  ["github", { repo: "acme/ops", token: "github-secret-1", labels: "bug" }],
  ["trello", { list_id: "0123456789abcdef01234567", token: "trello-secret-1" }],
];

const INVALID: [kind: string, value: unknown, field: string][] = [
  ["telegram", { chat_id: "not a chat" }, "value.chat_id"],
  ["telegram", { chat_id: 5, thread_id: -1 }, "value.thread_id"],
  ["msteamsw", "ftp://hooks.example/x", "value"],
  ["pd", { service_key: "" }, "value.service_key"],
  ["po", { user_key: "u", priority: 3 }, "value.priority"],
  ["po", "just-a-key", "value"],
  ["gotify", { url: "https://gotify.example" }, "value.token"],
  ["gotify", { url: "gotify.example", token: "t" }, "value.url"],
  ["matrix", { room_id: "room" }, "value.room_id"],
  ["signal", { value: "+1234" }, "value.value"],
  ["googlechat", { url: 5 }, "value.url"],
  ["opsgenie", { key: "k", region: "mars" }, "value.region"],
  ["mattermost", "not a url", "value"],
  ["rocketchat", {}, "value.url"],
  ["zulip", { bot_email: "bot", api_key: "k", mtype: "stream", to: "ops" }, "value.bot_email"],
  ["zulip", { bot_email: "b@o.example", api_key: "k", mtype: "dm", to: "ops" }, "value.mtype"],
  ["pushbullet", { token: "" }, "value.token"],
  ["victorops", 5, "value"],
  ["pagertree", "javascript:alert(1)", "value"],
  ["spike", { url: "" }, "value.url"],
  ["sms", "5551234", "value.phone"],
  ["whatsapp", { phone: "+15551234567", notify_down: "yes" }, "value.notify_down"],
  ["call", {}, "value.phone"],
  ["github", { repo: "acme", token: "t" }, "value.repo"],
  ["trello", { list_id: "nope", token: "t" }, "value.list_id"],
];

/** The settings that offer the kinds a server offers only when set up for them (whatsapp, signal). */
const OFFERED = {
  TWILIO_USE_WHATSAPP: "true",
  TWILIO_ACCOUNT: "AC1",
  TWILIO_AUTH: "tw",
  TWILIO_FROM: "+15550001111",
  TWILIO_MESSAGING_SERVICE_SID: "MG1",
  WHATSAPP_DOWN_CONTENT_SID: "HX1",
  WHATSAPP_UP_CONTENT_SID: "HX2",
  SIGNAL_CLI_SOCKET: "/run/signal-cli/socket",
};

test("admin API: each kind's value is accepted (201) and /api/v3/channels/ lists the reference's kind names, no secret anywhere", () =>
  withApi(
    async (api) => {
      const path = `/admin/v1/projects/${api.project.id}/channels`;
      for (const [kind, value] of VALID) {
        const res = await api.admin("POST", path, { kind, value, name: `${kind}-ch` });
        assert.is(res.status, 201, `${kind}: ${res.text}`);
        assert.equal([(res.json as Json).kind, (res.json as Json).name], [kind, `${kind}-ch`]);
      }
      const listed = await api.call("GET", "/api/v3/channels/");
      assert.equal((listed.json as { channels: Json[] }).channels.map((c) => c.kind).sort(), VALID.map(([kind]) => kind).sort());
      const states = await api.admin("GET", path);
      for (const text of [listed.text, states.text]) {
        for (const secret of SECRETS) assert.not.ok(text.includes(secret), `${secret} shown`);
      }
    },
    { env: OFFERED },
  ));

test("admin API: an invalid value answers 400 with an error naming its field, and adds nothing", () =>
  withApi(
    async (api) => {
      for (const [kind, value, field] of INVALID) {
        const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind, value });
        assert.is(res.status, 400, `${kind} ${JSON.stringify(value)}`);
        const error = (res.json as Json).error;
        assert.ok(typeof error === "string" && error.includes(field), `${kind}: ${String(error)}`);
      }
      assert.equal((await api.call("GET", "/api/v3/channels/")).json, { channels: [] });
    },
    { env: OFFERED },
  ));

test("admin API: shell is refused unless SHELL_ENABLED=true, and then takes its commands", async () => {
  const value = { cmd_down: `/bin/sh -c '/usr/local/bin/page-oncall "$NAME"'`, cmd_up: "" };
  await withApi(async (api) => {
    const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind: "shell", value });
    assert.is(res.status, 400);
    assert.match(String((res.json as Json).error), /SHELL_ENABLED/);
  });
  await withApi(
    async (api) => {
      const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind: "shell", value });
      assert.is(res.status, 201, res.text);
      const piped = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, {
        kind: "shell",
        value: { cmd_down: "alert | mail" },
      });
      assert.is(piped.status, 400);
      assert.match(String((piped.json as Json).error), /value\.cmd_down/);
    },
    { env: { SHELL_ENABLED: "true" } },
  );
});

test("hcd channel add takes a kind's JSON value on a DATA_DIR, and refuses a bad one", async () => {
  const dir = tempDir();
  const printed: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (text: string) => printed.push(text);
  console.error = (text: string) => printed.push(text);
  try {
    const env = { DATA_DIR: dir.path };
    assert.is(await runCli(["project", "create", "--name", "ops"], env), 0);
    const project = JSON.parse(printed.splice(0).join("\n")) as Json;
    const add = (value: string) =>
      runCli(["channel", "add", "--project", String(project.id), "--kind", "po", "--value", value, "--name", "phone"], env);
    assert.is(await add('{"user_key": "u-1", "priority": 1}'), 0);
    const added = JSON.parse(printed.splice(0).join("\n")) as Json;
    assert.equal([added.kind, added.name, typeof added.id], ["po", "phone", "string"]);
    assert.is.not(await add('{"user_key": "u-1", "priority": 7}'), 0);
    assert.ok(printed.splice(0).join("\n").includes("value.priority"));
    assert.is(await runCli(["channel", "list", "--project", String(project.id)], env), 0);
    const listed = JSON.parse(printed.splice(0).join("\n")) as { channels: Json[] };
    assert.equal(
      listed.channels.map((c) => [c.id, c.kind]),
      [[added.id, "po"]],
    );
  } finally {
    [console.log, console.error] = [log, error];
    dir.remove();
  }
});

test.run();
