// The server's settings for the kinds whose endpoint is fixed in the real service (CONTRACT "Notification
// kinds"): each defaults to the real service, so an operator can point it at a proxy and tests at a
// local receiver; and the switches of the kinds that run programs here. Read from the environment by
// app/config.ts through `serviceSettingsOf`.

export type ServiceSettings = {
  readonly telegramBotToken: string | null;
  readonly telegramApiUrl: string;
  readonly pagerdutyEventsUrl: string;
  readonly pushoverApiToken: string | null;
  readonly pushoverApiUrl: string;
  readonly opsgenieApiUrl: string | null; // null: by the channel's region, api.opsgenie.com or api.eu.opsgenie.com
  readonly matrixHomeserver: string | null;
  readonly matrixAccessToken: string | null;
  readonly pushbulletApiUrl: string;
  readonly twilioAccount: string | null;
  readonly twilioAuth: string | null;
  readonly twilioFrom: string | null;
  readonly twilioApiUrl: string;
  readonly twilioMessagingServiceSid: string | null; // WhatsApp: the Messaging Service its templates are sent through
  readonly whatsappDownContentSid: string | null; // WhatsApp: the approved message template of a down (HX...)
  readonly whatsappUpContentSid: string | null; // and of an up
  readonly signalCliSocket: string | null; // signal-cli's JSON-RPC socket: a UNIX socket path, or host:port
  readonly githubApiUrl: string;
  readonly trelloAppKey: string | null;
  readonly trelloApiUrl: string;
  readonly shellEnabled: boolean; // SHELL_ENABLED: the shell kind runs commands on this server
  readonly appriseEnabled: boolean; // APPRISE_ENABLED: the apprise kind runs the apprise command
  readonly twilioUseWhatsapp: boolean; // TWILIO_USE_WHATSAPP: the whatsapp kind is offered
};

export type TextSetting = { [K in keyof ServiceSettings]: ServiceSettings[K] extends boolean ? never : K }[keyof ServiceSettings];

/** Every text setting's environment name, its default (null = unset) and whether it is a secret. */
const NAMES: Record<TextSetting, [name: string, fallback: string | null, secret: boolean]> = {
  telegramBotToken: ["TELEGRAM_BOT_TOKEN", null, true],
  telegramApiUrl: ["TELEGRAM_API_URL", "https://api.telegram.org", false],
  pagerdutyEventsUrl: ["PAGERDUTY_EVENTS_URL", "https://events.pagerduty.com/generic/2010-04-15/create_event.json", false],
  pushoverApiToken: ["PUSHOVER_API_TOKEN", null, true],
  pushoverApiUrl: ["PUSHOVER_API_URL", "https://api.pushover.net", false],
  opsgenieApiUrl: ["OPSGENIE_API_URL", null, false],
  matrixHomeserver: ["MATRIX_HOMESERVER", null, false],
  matrixAccessToken: ["MATRIX_ACCESS_TOKEN", null, true],
  pushbulletApiUrl: ["PUSHBULLET_API_URL", "https://api.pushbullet.com", false],
  twilioAccount: ["TWILIO_ACCOUNT", null, false],
  twilioAuth: ["TWILIO_AUTH", null, true],
  twilioFrom: ["TWILIO_FROM", null, false],
  twilioApiUrl: ["TWILIO_API_URL", "https://api.twilio.com", false],
  twilioMessagingServiceSid: ["TWILIO_MESSAGING_SERVICE_SID", null, false],
  whatsappDownContentSid: ["WHATSAPP_DOWN_CONTENT_SID", null, false],
  whatsappUpContentSid: ["WHATSAPP_UP_CONTENT_SID", null, false],
  signalCliSocket: ["SIGNAL_CLI_SOCKET", null, false],
  githubApiUrl: ["GITHUB_API_URL", "https://api.github.com", false],
  trelloAppKey: ["TRELLO_APP_KEY", null, true],
  trelloApiUrl: ["TRELLO_API_URL", "https://api.trello.com", false],
};

/** The switches, off unless set to true (true/false, 1/0, yes/no, on/off). */
const FLAGS: Record<Exclude<keyof ServiceSettings, TextSetting>, string> = {
  shellEnabled: "SHELL_ENABLED",
  appriseEnabled: "APPRISE_ENABLED",
  twilioUseWhatsapp: "TWILIO_USE_WHATSAPP",
};

/** The settings with nothing set: the real services, no tokens, every switch off. */
export const DEFAULT_SERVICE_SETTINGS: ServiceSettings = serviceSettingsOf(() => undefined).settings;

/**
 * Reads the settings through `read` (an environment lookup); URLs lose a trailing slash. Returns the
 * problems too (a URL setting that is not an http(s) URL, a switch that is not a boolean), named by variable.
 */
export function serviceSettingsOf(read: (name: string) => string | undefined): { settings: ServiceSettings; problems: string[] } {
  const problems: string[] = [];
  const entries: [string, string | null | boolean][] = Object.entries(NAMES).map(([key, [name, fallback]]) => {
    const raw = read(name);
    const given = raw === undefined || raw === "" ? fallback : raw;
    if (given !== null && (name.endsWith("_URL") || name === "MATRIX_HOMESERVER")) {
      if (!/^https?:\/\/[^/\s]+/.test(given)) problems.push(`${name}: expected an http(s) URL`);
      return [key, given.replace(/\/+$/, "")];
    }
    return [key, given];
  });
  for (const [key, name] of Object.entries(FLAGS)) {
    const raw = (read(name) ?? "").trim().toLowerCase();
    if (!["", "true", "false", "1", "0", "yes", "no", "on", "off"].includes(raw)) problems.push(`${name}: expected true or false`);
    entries.push([key, ["true", "1", "yes", "on"].includes(raw)]);
  }
  return { settings: Object.fromEntries(entries) as ServiceSettings, problems };
}

/** The environment names of the secret settings (each may also be given as `<NAME>_FILE`, app/secret-files.ts). */
export const SECRET_SERVICE_SETTINGS: readonly string[] = Object.values(NAMES)
  .filter(([, , secret]) => secret)
  .map(([name]) => name);

/** The secret settings' values that are set, to be cut out of any error text. */
export function settingSecrets(settings: ServiceSettings): string[] {
  return Object.entries(NAMES).flatMap(([key, [, , secret]]) => {
    const value = settings[key as TextSetting];
    return secret && typeof value === "string" && value !== "" ? [value] : [];
  });
}

/** The first of `keys` the server lacks, by its variable's name; null when it has them all. */
export function missingSetting(settings: ServiceSettings, keys: readonly TextSetting[]): string | null {
  const missing = keys.find((key) => settings[key] === null || settings[key] === "");
  return missing === undefined ? null : NAMES[missing][0];
}

/** The value of a required setting; throws naming its variable when the server lacks it. */
export function required(settings: ServiceSettings, key: TextSetting): string {
  const value = settings[key];
  if (value === null || value === "") throw new Error(`${NAMES[key][0]} is not set on this server`);
  return value;
}
