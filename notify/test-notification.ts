// "Test" on the integrations page: renders a down notification for a sample check named TEST (as the
// reference's test message does) with the same renderer as real notifications, and sends it at once
// with the same senders and limits, without touching the outbox. Returns the outcome to show.
import type { Channel, Check, Millis, Project } from "../engine/model.ts";
import { LIMITS } from "../engine/model.ts";
import { render } from "./render.ts";
import { sendEmail, sendRequests } from "./send.ts";
import type { ServiceSettings } from "./kinds/settings.ts";
import { DEFAULT_SERVICE_SETTINGS } from "./kinds/settings.ts";
import { serviceRefusal } from "./kinds/service.ts";
import { groupMembers } from "./kinds/group.ts";

export type TestOptions = {
  readonly siteRoot: string;
  readonly allowPrivateIps: boolean;
  readonly smtpUrl: string | null;
  readonly services?: ServiceSettings; // the kinds of notify/kinds/: tokens and endpoints
  readonly channels?: (projectId: string) => Promise<readonly Channel[]>; // a group's members
};

const SAMPLE_UUID = "00000000-0000-0000-0000-000000000000";
const TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Sends one test notification through `channel`; resolves with null when it was accepted, else the error text. */
export async function sendTestNotification(project: Project, channel: Channel, at: Millis, opts: TestOptions): Promise<string | null> {
  if (channel.kind === "group" && opts.channels !== undefined) { // through each member, as a real notification goes
    const members = groupMembers(channel, await opts.channels(project.id));
    if (members.length === 0) return "this group has no integrations to send to";
    const errors = await Promise.all(members.map(async (member) => {
      const error = await sendTestNotification(project, member, at, opts);
      return error === null ? null : `${member.name || member.kind}: ${error}`;
    }));
    const failed = errors.filter((error) => error !== null);
    return failed.length === 0 ? null : failed.join("; ");
  }
  const check = sampleCheck(project, at);
  let delivery;
  try {
    delivery = render({
      id: "test", projectId: project.id, check, channel, projectName: project.name,
      flip: { checkUuid: check.uuid, n: 1, at: at, from: "up", to: "down", reason: "timeout", notify: true },
      lastPing: null, lastPingBody: null, downSinceAt: null, attempts: 0, nextAttemptAt: at, lastError: null,
    }, { siteRoot: opts.siteRoot, siteName: "hcd", services: opts.services });
  } catch (error) { // a setting the server lacks (TELEGRAM_BOT_TOKEN, ...)
    return `Cannot build the message: ${String(error)}`;
  }
  if (delivery === null) return "this integration sends nothing for a down notification";
  const result = delivery.kind === "email"
    ? await sendEmail(delivery, { smtpUrl: opts.smtpUrl ?? undefined, from: "hcd@localhost", timeoutMs: TIMEOUT_MS })
    : await sendRequests(delivery, { timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES, allowPrivateIps: opts.allowPrivateIps });
  if (result.ok) return null;
  const value = channel.value;
  return "fields" in value && result.status !== null
    ? serviceRefusal(value.kind, value.fields, opts.services ?? DEFAULT_SERVICE_SETTINGS, result.status, result.responseBody).error
    : result.error;
}

function sampleCheck(project: Project, at: Millis): Check {
  return {
    uuid: SAMPLE_UUID, projectId: project.id, badgeKey: SAMPLE_UUID, name: "TEST", slug: "test", tags: "", desc: "",
    kind: "simple", timeoutMs: LIMITS.defaultTimeoutMs, graceMs: LIMITS.defaultGraceMs, schedule: "* * * * *", tz: "UTC",
    manualResume: false, methods: "", startKw: "", successKw: "", failureKw: "", filterSubject: false,
    filterBody: false, filterHttpBody: false, filterDefaultFail: false, channels: [], createdAt: at,
    status: "down", nPings: 0, nFlips: 1, lastPingAt: null, lastStartAt: null, lastStartRid: null, lastDurationMs: null,
  };
}
