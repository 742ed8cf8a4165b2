// What the tests of the kinds of notify/kinds/ share: one check's down, up and reminder entries, the
// server's settings pointed at a local receiver, and delivery through a real Deliverer and store.
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, ServiceKind } from "../../engine/model.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import type { DelivererOptions } from "../../notify/deliverer.ts";
import { Deliverer } from "../../notify/deliverer.ts";
import { parseServiceValue } from "../../notify/kinds/service.ts";
import type { ServiceSettings } from "../../notify/kinds/settings.ts";
import type { EntryExtras } from "../../notify/render.ts";
import { channel, check, ping } from "../helpers.ts";
import { outboxEntry } from "./memory-outbox.ts";
import { StoreOutbox } from "./store-outbox.ts";

export const DOWN_AT = Date.UTC(2020, 0, 1, 1, 0, 0);
export const UP_AT = DOWN_AT + HOUR;
export const REMINDER_AT = DOWN_AT + 2 * HOUR;
export const CHECK_UUID = "5c3e8a1e-0000-4000-8000-000000000001";
// sha1("5c3e8a1e00004000"): the reference's unique_key of that uuid, worked out apart from the code
export const UNIQUE_KEY = "eb7a353a0e6ed80d8a2e2bcef2045e4ff5e34805";
export const LINK = `http://hcd.test/cloaked/${UNIQUE_KEY}/`;
export const REASON = "success signal did not arrive on time, grace time passed";
export const REMINDER_LINE = "Still down since 2020-01-01T01:00:00+00:00 (2 hours, 0 minutes), 2 reminders so far.";
export const DOWNTIME_LINE = "The downtime lasted 1 hour, 0 minutes.";
export const BOT_TOKEN = "123456:bot-token-secret";
export const PUSHOVER_TOKEN = "pushover-app-token-secret";
export const MATRIX_TOKEN = "matrix-access-token-secret";
export const TWILIO_AUTH = "twilio-auth-secret";
export const TRELLO_KEY = "trello-app-key-secret";

export type Direction = "down" | "up" | "reminder";

/** The server's settings with every fixed endpoint under the receiver at `base`. */
export function settingsAt(base: string): ServiceSettings {
  return {
    telegramBotToken: BOT_TOKEN,
    telegramApiUrl: `${base}/tg`,
    pagerdutyEventsUrl: `${base}/pd/create_event.json`,
    pushoverApiToken: PUSHOVER_TOKEN,
    pushoverApiUrl: `${base}/po`,
    opsgenieApiUrl: `${base}/og`,
    matrixHomeserver: `${base}/mx`,
    matrixAccessToken: MATRIX_TOKEN,
    pushbulletApiUrl: `${base}/pb`,
    shellEnabled: true,
    appriseEnabled: true,
    twilioAccount: "AC123",
    twilioAuth: TWILIO_AUTH,
    twilioFrom: "+15550001111",
    twilioApiUrl: `${base}/tw`,
    twilioUseWhatsapp: true,
    twilioMessagingServiceSid: "MG0123456789abcdef0123456789abcdef",
    whatsappDownContentSid: "HXdown0123456789abcdef0123456789ab",
    whatsappUpContentSid: "HXup000123456789abcdef0123456789ab",
    signalCliSocket: "/run/signal-cli/socket",
    githubApiUrl: `${base}/gh`,
    trelloAppKey: TRELLO_KEY,
    trelloApiUrl: `${base}/tr`,
  };
}

/** A channel of `kind` whose value went through the kind's own check, as the admin API's would. */
export function serviceChannel(kind: ServiceKind, value: unknown): Channel {
  const fields = parseServiceValue(kind, value, settingsAt("http://127.0.0.1"));
  if (!fields.ok) throw new Error(`${kind}: ${JSON.stringify(fields.failure)}`);
  return channel({ kind, value: { kind, fields: fields.value } });
}

/** The entry of one message through `ch`: a down (timeout), the up an hour later, or the second reminder. */
export function entryOf(ch: Channel, direction: Direction): OutboxEntry & EntryExtras {
  const c = check({ uuid: CHECK_UUID, name: "Backup", status: direction === "up" ? "up" : "down", nPings: 7 });
  const lastPing = ping({ n: 7, at: DOWN_AT - 5 * MINUTE, kind: "success" });
  const extras = { projectName: "Ops", downSinceAt: DOWN_AT };
  if (direction === "down") return outboxEntry({ check: c, channel: ch, lastPing, extras, flip: { at: DOWN_AT, n: 2 } });
  if (direction === "up")
    return outboxEntry({ check: c, channel: ch, lastPing, extras, flip: { at: UP_AT, n: 3, from: "down", to: "up", reason: "" } });
  const entry = outboxEntry({
    check: c,
    channel: ch,
    lastPing,
    extras,
    flip: { at: REMINDER_AT, n: 2, from: "down", to: "down", reason: "" },
  });
  return { ...entry, reminder: 2 };
}

const opened: StoreOutbox[] = [];

/** A deliverer over a fresh real store holding `entries`, with the settings at `base`. */
export async function delivererOf(entries: readonly OutboxEntry[], base: string, options: Partial<DelivererOptions> = {}) {
  const outbox = await StoreOutbox.open(entries);
  opened.push(outbox);
  const deliverer = new Deliverer({
    outbox,
    siteRoot: "http://hcd.test",
    allowPrivateIps: true,
    fromAddress: "hcd@hcd.test",
    timeoutMs: 2_000,
    services: settingsAt(base),
    ...options,
  });
  return { outbox, deliverer };
}

/** Closes and removes every store delivererOf opened. */
export async function closeOutboxes(): Promise<void> {
  for (const outbox of opened.splice(0)) await outbox.close();
}
