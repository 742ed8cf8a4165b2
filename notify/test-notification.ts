// "Test" on the integrations page: a down notification of a sample check named TEST (as the reference's
// test message is), sent at once through the deliverer's own path for one entry, without touching the
// outbox. Returns the outcome to show.
import type { Channel, Check, Millis, Project } from "../engine/model.ts";
import { checkWith, freshCheck } from "../engine/model.ts";
import { randomUUID } from "node:crypto";
import type { OutboxEntry } from "../engine/changes.ts";
import { entryCheckOf, noticeChannelOf } from "../engine/changes.ts";
import type { Outbox } from "./deliverer.ts";
import { Deliverer } from "./deliverer.ts";
import type { ServiceSettings } from "./kinds/settings.ts";
import { DEFAULT_SERVICE_SETTINGS } from "./kinds/settings.ts";

export type TestOptions = {
  readonly siteRoot: string;
  readonly allowPrivateIps: boolean;
  readonly smtpUrl: string | null;
  readonly services?: ServiceSettings; // the kinds of notify/kinds/: tokens and endpoints
  readonly channels?: (projectId: string) => Promise<readonly Channel[]>; // a group's members
  readonly fromAddress?: string; // an email's From (default hcd@localhost)
};

const SAMPLE_UUID = "00000000-0000-0000-0000-000000000000";
const TIMEOUT_MS = 10_000;

/** An outbox that holds nothing: a test notification is sent once and never stored. */
const NO_OUTBOX: Outbox = { outboxDue: () => [], outboxUpdate: async () => {}, outboxDelete: async () => {} };

/**
 * Sends one test notification through `channel` as a real one goes: the entry carries what the shard's
 * entries carry of the check (engine/changes.ts entryCheckOf), and a Deliverer renders it, fans a group
 * out to its members and reads the answers. Resolves with null when it was accepted, else the error text.
 */
export async function sendTestNotification(project: Project, channel: Channel, at: Millis, opts: TestOptions): Promise<string | null> {
  const sample = sampleCheck(project, at);
  const entry: OutboxEntry = {
    id: `test-${randomUUID()}`,
    projectId: project.id,
    check: entryCheckOf(channel, sample),
    channel: noticeChannelOf(channel),
    projectName: project.name,
    flip: { checkUuid: sample.uuid, n: 1, at, from: "up", to: "down", reason: "timeout", notify: true },
    lastPing: null,
    lastPingBody: null,
    downSinceAt: null,
    attempts: 0,
    nextAttemptAt: at,
    lastError: null,
  };
  const deliverer = new Deliverer({
    outbox: NO_OUTBOX,
    siteRoot: opts.siteRoot,
    siteName: "hcd",
    allowPrivateIps: opts.allowPrivateIps,
    smtpUrl: opts.smtpUrl ?? undefined,
    fromAddress: opts.fromAddress ?? "hcd@localhost",
    timeoutMs: TIMEOUT_MS,
    services: opts.services ?? DEFAULT_SERVICE_SETTINGS,
    channels: opts.channels,
  });
  return deliverer.sendOnce(entry, at);
}

function sampleCheck(project: Project, at: Millis): Check {
  const fresh = freshCheck({ uuid: SAMPLE_UUID, badgeKey: SAMPLE_UUID, projectId: project.id }, at);
  return checkWith(fresh, { name: "TEST", slug: "test", status: "down", nFlips: 1 });
}
