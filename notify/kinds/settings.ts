// The server's settings for the kinds whose endpoint is fixed in the real service (CONTRACT "Notification
// kinds"): each defaults to the real service, so an operator can point it at a proxy and tests at a
// local receiver. Read from the environment by app/config.ts through `serviceSettingsOf`.

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
};

/** Every setting's environment name, its default (null = unset) and whether it is a secret. */
const NAMES: Record<keyof ServiceSettings, [name: string, fallback: string | null, secret: boolean]> = {
  telegramBotToken: ["TELEGRAM_BOT_TOKEN", null, true],
  telegramApiUrl: ["TELEGRAM_API_URL", "https://api.telegram.org", false],
  pagerdutyEventsUrl: ["PAGERDUTY_EVENTS_URL", "https://events.pagerduty.com/generic/2010-04-15/create_event.json", false],
  pushoverApiToken: ["PUSHOVER_API_TOKEN", null, true],
  pushoverApiUrl: ["PUSHOVER_API_URL", "https://api.pushover.net", false],
  opsgenieApiUrl: ["OPSGENIE_API_URL", null, false],
  matrixHomeserver: ["MATRIX_HOMESERVER", null, false],
  matrixAccessToken: ["MATRIX_ACCESS_TOKEN", null, true],
  pushbulletApiUrl: ["PUSHBULLET_API_URL", "https://api.pushbullet.com", false],
};

/** The settings with nothing set: the real services, no tokens. */
export const DEFAULT_SERVICE_SETTINGS: ServiceSettings = serviceSettingsOf(() => undefined).settings;

/**
 * Reads the settings through `read` (an environment lookup); URLs lose a trailing slash. Returns the
 * problems too (a URL setting that is not an http(s) URL), named by variable.
 */
export function serviceSettingsOf(read: (name: string) => string | undefined): { settings: ServiceSettings; problems: string[] } {
  const problems: string[] = [];
  const entries = Object.entries(NAMES).map(([key, [name, fallback]]) => {
    const raw = read(name);
    const given = raw === undefined || raw === "" ? fallback : raw;
    if (given !== null && (name.endsWith("_URL") || name === "MATRIX_HOMESERVER")) {
      if (!/^https?:\/\/[^/\s]+/.test(given)) problems.push(`${name}: expected an http(s) URL`);
      return [key, given.replace(/\/+$/, "")];
    }
    return [key, given];
  });
  return { settings: Object.fromEntries(entries) as ServiceSettings, problems };
}

/** The secret settings' values that are set, to be cut out of any error text. */
export function settingSecrets(settings: ServiceSettings): string[] {
  return Object.entries(NAMES).flatMap(([key, [, , secret]]) => {
    const value = settings[key as keyof ServiceSettings];
    return secret && typeof value === "string" && value !== "" ? [value] : [];
  });
}

/** The value of a required setting; throws naming its variable when the server lacks it. */
export function required(settings: ServiceSettings, key: keyof ServiceSettings): string {
  const value = settings[key];
  if (value === null || value === "") throw new Error(`${NAMES[key][0]} is not set on this server`);
  return value;
}
