// An OutboxEntry factory (the outbox itself is a real store: store-outbox.ts).
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, Check, Flip, PingRecord } from "../../engine/model.ts";
import type { EntryExtras } from "../../notify/render.ts";
import { channel, check, flip } from "../helpers.ts";

/** Returns an outbox entry for a down flip at 0 of a fresh check; override any part. */
export function outboxEntry(
  parts: {
    check?: Check;
    flip?: Partial<Flip>;
    channel?: Channel;
    lastPing?: PingRecord | null;
    attempts?: number;
    nextAttemptAt?: number;
    extras?: EntryExtras;
  } = {},
): OutboxEntry & EntryExtras {
  const c = parts.check ?? check({ name: "Backup", status: "down" });
  const f = flip({ checkUuid: c.uuid, at: 0, from: "up", to: "down", reason: "timeout", notify: true, ...parts.flip });
  const ch = parts.channel ?? channel();
  return {
    id: `${String(f.at).padStart(15, "0")}:${c.uuid}:${String(f.n).padStart(9, "0")}:${ch.id}`,
    projectId: c.projectId,
    check: c,
    flip: f,
    channel: ch,
    lastPing: parts.lastPing ?? null,
    lastPingBody: parts.extras?.lastPingBody ?? null,
    projectName: parts.extras?.projectName ?? "",
    downSinceAt: parts.extras?.downSinceAt ?? null,
    attempts: parts.attempts ?? 0,
    nextAttemptAt: parts.nextAttemptAt ?? f.at,
    lastError: null,
  };
}
