// A project's channels (integrations) as the engine keeps them: their kinds, and each kind's value as
// normalised at creation; notify/ checks and renders a service kind's value, the engine stores it as given.
import type { Millis } from "./units.ts";

/**
 * Kinds beyond the first five: each is one module of notify/kinds/ that checks its value and renders its
 * message (CONTRACT "Notification kinds"); the engine stores their values as given.
 */
export const SERVICE_KINDS = [
  "telegram",
  "msteamsw",
  "pd",
  "po",
  "gotify",
  "matrix",
  "googlechat",
  "opsgenie",
  "mattermost",
  "rocketchat",
  "zulip",
  "pushbullet",
  "victorops",
  "pagertree",
  "spike",
  "shell",
  "github",
  "trello",
  "sms",
  "whatsapp",
  "call",
  "apprise",
  "group",
  "signal",
  "alertmanager",
] as const;
export type ServiceKind = (typeof SERVICE_KINDS)[number];
export const CHANNEL_KINDS = ["email", "webhook", "slack", "discord", "ntfy", ...SERVICE_KINDS] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** Webhook channel value: the reference's per-direction request. An empty URL = no request. */
export type WebhookSpec = {
  readonly method_down: string;
  readonly url_down: string;
  readonly body_down: string;
  readonly headers_down: Readonly<Record<string, string>>;
  readonly method_up: string;
  readonly url_up: string;
  readonly body_up: string;
  readonly headers_up: Readonly<Record<string, string>>;
};
/** An ntfy channel; `token`: an access token for a protected topic or server (absent: none). */
export type NtfySpec = {
  readonly url: string;
  readonly topic: string;
  readonly priority_down: number;
  readonly priority_up: number;
  readonly token?: string;
};

/** A channel's value, normalised at creation: email address, webhook spec, chat webhook URL, ntfy spec. */
export type ChannelValue =
  | { readonly kind: "email"; readonly address: string }
  | { readonly kind: "webhook"; readonly spec: WebhookSpec; readonly json: boolean } // json: POST the check's JSON (URL form)
  | { readonly kind: "slack"; readonly url: string }
  | { readonly kind: "discord"; readonly url: string }
  | { readonly kind: "ntfy"; readonly spec: NtfySpec }
  | { readonly kind: ServiceKind; readonly fields: ServiceFields };

/** A service kind's value: the fields the reference keeps per channel (CONTRACT "Notification kinds"). */
export type ServiceFields = Readonly<Record<string, string | number | null>>;

export type Channel = {
  readonly id: string; // uuid
  readonly projectId: string;
  readonly name: string;
  readonly kind: ChannelKind;
  readonly value: ChannelValue;
  readonly createdAt: Millis;
  /** Imported without its settings (a stub of its kind's empty value): nothing is sent until they are given; absent = has them. */
  readonly needsSettings?: true;
  /** Whether new checks (the dashboard's "Add check", a ping's auto-created check) get this integration; absent = true. */
  readonly newChecks?: boolean;
  /** Notified of every failure signal of its checks, not only of the change to down (`every_failure`); absent = not. */
  readonly everyFailure?: boolean;
};
