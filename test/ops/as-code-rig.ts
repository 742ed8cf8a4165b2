// What the tests of `hcd export` and `hcd apply` share: the CLI as a child process, a rich project made
// through the real APIs of a real server (every check kind, schedules, alerting fields, channels of many
// kinds, one told of every failure, run rules, escalation policies of a check and of the project, status pages,
// maintenance windows), and everything the admin API shows as one text to compare.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runCli } from "../../app/cli.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";

export const HCD = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));
export const ADMIN = "admin-token-as-code-test-0123456789";
/** The server's settings: shell commands on (a shell channel is part of the rich project). */
export const SERVER_ENV = { ADMIN_TOKEN: ADMIN, SITE_ROOT: "http://hc.test", SHELL_ENABLED: "true" };

export type Run = { status: number | null; stdout: string; stderr: string };

/** Runs `hcd` in a child process with `env` added to this one's (minus DATA_DIR and HCD_URL), `input` on its stdin. */
export function hcd(args: readonly string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const base = { ...process.env };
    delete base.DATA_DIR;
    delete base.HCD_URL;
    const child = spawn(process.execPath, [HCD, ...args], { env: { ...base, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.stdin.end(input ?? "");
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * Runs `hcd` in this process (app/cli.ts runCli, as bin/hcd.mjs does; `env` is its whole environment), its
 * output captured: the same code as the child process without a process start per call.
 */
export async function hcdIn(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const out: string[] = [],
    err: string[] = [];
  const [log, error, write] = [console.log, console.error, process.stdout.write];
  console.log = (...parts: unknown[]) => {
    out.push(parts.join(" ") + "\n");
  };
  console.error = (...parts: unknown[]) => {
    err.push(parts.join(" ") + "\n");
  };
  process.stdout.write = (chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  };
  try {
    return { status: await runCli(args, env), stdout: out.join(""), stderr: err.join("") };
  } finally {
    [console.log, console.error, process.stdout.write] = [log, error, write];
  }
}

/** `--url` and `--token` of a server. */
export const remote = (server: RealServer) => ["--url", server.url, "--token", ADMIN];

type Json = Record<string, unknown>;

/** Sends an admin request; returns its JSON (throws on a non-2xx answer). */
export function adminCall<T = Json>(server: RealServer, method: string, path: string, body?: unknown): Promise<T> {
  return ok<T>(call(server.url, method, path, { headers: { authorization: `Bearer ${ADMIN}` }, body }));
}

/** The secrets the rich project's channels hold, by the variable `hcd export` names for each. */
export const RICH_SECRETS: Record<string, string> = {
  HCD_RICH_HOOK_OBJECT_URL_DOWN: "https://hooks.example.com/down?token=s3cr3t-down",
  HCD_RICH_HOOK_OBJECT_URL_UP: "https://hooks.example.com/up",
  HCD_RICH_HOOK_OBJECT_AUTHORIZATION_HEADER_DOWN: "Bearer s3cr3t-bearer",
  HCD_RICH_HOOK_JSON_URL: "https://hooks.example.com/json?key=s3cr3t-json",
  HCD_RICH_SLACK_URL: "https://hooks.slack.com/services/T0/B0/s3cr3t-slack",
  HCD_RICH_DISCORD_URL: "https://discord.com/api/webhooks/1/s3cr3t-discord",
  HCD_RICH_PAGERDUTY_SERVICE_KEY: "s3cr3t-pd",
  HCD_RICH_GOTIFY_TOKEN: "s3cr3t-gotify",
  HCD_RICH_ZULIP_API_KEY: "s3cr3t-zulip",
};

export type Rich = { project: ProjectJson; checks: Record<string, string>; channels: Record<string, string> };

/** Makes project "rich" through the admin and management APIs. */
export async function richProject(server: RealServer): Promise<Rich> {
  const project = await createProject(server, ADMIN, { name: "rich", check_limit: 50, ping_log_limit: 200, ping_body_limit: 20_000 });
  const channels: Record<string, string> = {};
  const add = async (name: string, kind: string, value: unknown) => {
    channels[name] = (await addChannel(server, ADMIN, project.id, { name, kind, value })).id;
  };
  await add("mail", "email", "ops@example.com");
  await add("hook object", "webhook", {
    method_down: "POST",
    url_down: RICH_SECRETS.HCD_RICH_HOOK_OBJECT_URL_DOWN,
    body_down: '{"check": "$NAME", "raw": "${not a variable}"}',
    headers_down: { Authorization: RICH_SECRETS.HCD_RICH_HOOK_OBJECT_AUTHORIZATION_HEADER_DOWN, "Content-Type": "application/json" },
    method_up: "GET",
    url_up: RICH_SECRETS.HCD_RICH_HOOK_OBJECT_URL_UP,
  });
  await add("hook json", "webhook", RICH_SECRETS.HCD_RICH_HOOK_JSON_URL);
  await add("slack", "slack", RICH_SECRETS.HCD_RICH_SLACK_URL);
  channels.discord = (
    await adminCall<{ id: string }>(server, "POST", `/admin/v1/projects/${project.id}/channels`, {
      name: "discord",
      kind: "discord",
      value: RICH_SECRETS.HCD_RICH_DISCORD_URL,
      new_checks: false,
    })
  ).id; // not added to new checks
  channels.ntfy = (
    await adminCall<{ id: string }>(server, "POST", `/admin/v1/projects/${project.id}/channels`, {
      name: "ntfy",
      kind: "ntfy",
      value: { url: "https://ntfy.example.com", topic: "ops-alerts", priority_down: 5, priority_up: 2 },
      every_failure: true,
    })
  ).id; // told of every failure
  await add("pagerduty", "pd", { service_key: RICH_SECRETS.HCD_RICH_PAGERDUTY_SERVICE_KEY });
  await add("gotify", "gotify", { url: "https://gotify.example.com", token: RICH_SECRETS.HCD_RICH_GOTIFY_TOKEN, priority: 8 });
  await add("zulip", "zulip", {
    bot_email: "bot@zulip.example.com",
    api_key: RICH_SECRETS.HCD_RICH_ZULIP_API_KEY,
    mtype: "stream",
    to: "ops",
    topic: "alerts",
  });
  await add("telegram", "telegram", { chat_id: "-1001234" });
  await add("sms", "sms", { phone: "+15551234567", notify_up: false });
  await add("shell", "shell", { cmd_down: "/bin/sh -c 'logger down \"$NAME\"'", cmd_up: "" });
  await add("everyone", "group", { channels: [channels.mail, channels.slack] });
  // a stub brought over without its settings (an import's): the file knows only that it needs them
  channels["old pager"] = (
    await adminCall<{ id: string }>(server, "POST", `/admin/v1/projects/${project.id}/channels`, {
      name: "old pager",
      kind: "pd",
      needs_settings: true,
    })
  ).id;

  const checks: Record<string, string> = {};
  const create = async (key: string, body: Json) => {
    checks[key] = (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body }))).uuid;
  };
  await create("simple", {
    name: "Nightly backup",
    slug: "nightly-backup",
    tags: "prod db",
    desc: "Dumps the database.\nSee the runbook.",
    timeout: 86_400,
    grace: 1_800,
    channels: `${channels.mail},${channels.everyone}`,
    failure_threshold: 2,
    reminder_interval: 3_600,
    max_duration: 7_200,
    min_duration: 60,
    alert_on_overlap: true,
    max_runs_per_period: 3,
    escalation: [
      { after: 600, channels: channels.slack },
      { after: 3_600, channels: `${channels.pagerduty},${channels.sms}` },
    ],
  });
  await create("cron", {
    name: "Hourly sync",
    slug: "hourly-sync",
    schedule: "5 * * * 1-5",
    tz: "Europe/Riga",
    grace: 300,
    methods: "POST",
    manual_resume: true,
    channels: `${channels.slack},${channels["hook object"]}`,
    depends_on: checks.simple,
  });
  await create("oncalendar", {
    name: "Weekly report",
    slug: "weekly-report",
    schedule: "Mon *-*-* 06:30:00\nFri *-*-* 18:00",
    tz: "America/New_York",
    start_kw: "begin",
    success_kw: "SUCCESS,done",
    failure_kw: "ERROR",
    filter_subject: true,
    filter_body: true,
    filter_http_body: true,
    filter_default_fail: true,
    muted_until: "2031-02-03T04:05:06Z",
  });
  await create("bare", { name: "", escalation: [] }); // no name, no slug: known by its uuid alone; no escalation, not the project's
  await create("utc cron", { name: "utc", slug: "utc-cron", schedule: "*/15 * * * *", channels: "*" });

  await adminCall(server, "PUT", `/admin/v1/projects/${project.id}/escalation`, {
    escalation: [{ after: 1_800, channels: channels.mail }],
  });

  const pages = (body: Json) => adminCall(server, "POST", `/admin/v1/projects/${project.id}/status-pages`, body);
  await pages({
    slug: "rich-public",
    title: "Public services",
    description: "Nightly work first\nthen the rest",
    logo: "https://cdn.example.com/rich.png",
    checks: [checks.cron, checks.simple],
    groups: [{ name: "Nightly", checks: [checks.cron] }],
  });
  await pages({ slug: "rich-internal", title: "Internal", checks: [checks.bare] });
  const windows = (body: Json) => adminCall(server, "POST", `/admin/v1/projects/${project.id}/maintenance`, body);
  await windows({ name: "patch night", schedule: "0 2 * * 2", tz: "Europe/Berlin", duration: 7_200 });
  await windows({ name: "month end", schedule: "*-*-01 00:00:00", tz: "UTC", duration: 3_600 });
  return { project, checks, channels };
}

/** Everything the admin API shows (projects, channels with values, checks, pages, windows), as one text: equal texts, nothing changed. */
export async function everything(server: RealServer): Promise<string> {
  const { projects } = await adminCall<{ projects: Json[] }>(server, "GET", "/admin/v1/projects");
  const all = [];
  for (const project of projects) {
    const base = `/admin/v1/projects/${String(project.id)}`;
    const { channels } = await adminCall<{ channels: Json[] }>(server, "GET", `${base}/channels`);
    const values = [];
    for (const channel of channels) values.push(await adminCall(server, "GET", `${base}/channels/${String(channel.id)}`));
    all.push({
      project,
      channels: values,
      escalation: await adminCall(server, "GET", `${base}/escalation`),
      checks: await adminCall(server, "GET", `${base}/checks`),
      pages: await adminCall(server, "GET", `${base}/status-pages`),
      windows: await adminCall(server, "GET", `${base}/maintenance`),
    });
  }
  return JSON.stringify(all, null, 1);
}
