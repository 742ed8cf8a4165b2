// Each integration's last delivery for the integrations page: the newer of its last notification sent
// (the sent logs of the checks it is assigned to) and its last failed attempt still in the outbox.
import type { OutboxEntry } from "../../engine/changes.ts";
import { hasGivenUp } from "../../engine/changes.ts";
import type { Channel, Check, Project } from "../../engine/model.ts";
import type { AppDeps } from "../deps.ts";
import type { LastDelivery } from "./integration-pages.ts";

/** The checks whose sent logs are read for one page: a project with more shows the sends of these (the most recently pinged). */
const CHECKS_READ = 500;

/** Channel id → its last delivery (none: nothing sent or tried yet). */
export async function lastDeliveries(
  deps: Pick<AppDeps, "pool">,
  project: Project,
  channels: readonly Channel[],
  checks: readonly Check[],
  outbox: readonly OutboxEntry[],
): Promise<Map<string, LastDelivery>> {
  const last = new Map<string, LastDelivery>();
  const keep = (channelId: string, delivery: LastDelivery) => {
    const known = last.get(channelId);
    if (known === undefined || delivery.at > known.at) last.set(channelId, delivery);
  };
  const assigned = checks
    .filter((check) => check.channels.length > 0)
    .sort((a, b) => (b.lastPingAt ?? b.createdAt) - (a.lastPingAt ?? a.createdAt))
    .slice(0, CHECKS_READ);
  const names = new Map(checks.map((check) => [check.uuid, check.name === "" ? check.uuid : check.name]));
  const logs = await Promise.all(assigned.map((check) => deps.pool.listSent(project.id, check.uuid)));
  for (const log of logs) {
    if (!log.ok) continue;
    for (const sent of log.value)
      keep(sent.channel.id, { at: sent.sentAt, status: "sent", error: null, check: names.get(sent.checkUuid) ?? sent.checkUuid });
  }
  const known = new Set(channels.map((channel) => channel.id));
  for (const entry of outbox) {
    if (entry.lastAttemptAt === undefined || !known.has(entry.channel.id)) continue;
    keep(entry.channel.id, {
      at: entry.lastAttemptAt,
      status: hasGivenUp(entry) ? "given up" : "failed",
      error: entry.lastError,
      check: names.get(entry.check.uuid) ?? entry.check.name,
    });
  }
  return last;
}
