// hcd's log (pino): LOG_FORMAT=json (one JSON object a line, on stdout) or text (the default: the
// message as "hcd: <message>" with its fields as key=value; warnings and errors on stderr), and
// LOG_LEVEL (fatal, error, warn, info, debug, trace, silent; default info). Read from the environment
// at import, so the shard threads (which share it) log the same way.
//
// Never log a secret: no API keys, ping keys, tokens, passwords, request bodies or ping URLs (a ping
// URL names a check; a slug URL holds the project's ping key). Requests are logged by route (ids and
// keys replaced), the configuration through maskedConfig.
import { pino } from "pino";
import type { Logger } from "pino";

export type { Logger } from "pino";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);
const TEXT_LEVELS: Readonly<Record<number, string>> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** Returns a logger writing `format` at `level` and above. */
export function createLogger(format: string, level: string): Logger {
  const options = {
    level: LEVELS.has(level) ? level : "info",
    base: { pid: process.pid },
    // belt and braces: these fields never leave the process, whoever passes them
    redact: {
      paths: [
        "apiKey",
        "api_key",
        "token",
        "adminToken",
        "metricsToken",
        "password",
        "body",
        "*.apiKey",
        "*.adminToken",
        "*.metricsToken",
        "*.password",
      ],
      censor: "[masked]",
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (format === "json") return pino(options, pino.destination({ dest: 1, sync: true }));
  return pino({ ...options, base: undefined, timestamp: false }, { write: (line: string) => writeText(line) });
}

/** Writes one pino JSON line as text: "hcd: <msg>[: <error>] key=value ...". */
function writeText(line: string): void {
  const { level, msg, err, ...fields } = JSON.parse(line) as {
    level: number;
    msg?: string;
    err?: { stack?: string; message?: string };
  } & Record<string, unknown>;
  const extra = Object.entries(fields)
    .map(([key, value]) => ` ${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join("");
  const error = err === undefined ? "" : `: ${err.stack ?? err.message ?? JSON.stringify(err)}`;
  const text = `hcd: ${msg ?? ""}${error}${extra}\n`;
  if (level >= 40 || TEXT_LEVELS[level] === undefined) process.stderr.write(text);
  else process.stdout.write(text);
}

/** The process's logger, configured from LOG_FORMAT and LOG_LEVEL. */
export const log: Logger = createLogger(
  process.env.LOG_FORMAT?.trim().toLowerCase() ?? "text",
  process.env.LOG_LEVEL?.trim().toLowerCase() || "info",
);

/** A setting's name that holds a secret, at any depth of the configuration (TWILIO_AUTH is `twilioAuth`). */
const SECRET_NAME = /token|password|secret|key|auth/i;

/**
 * Returns the configuration as it may be logged: every setting whose name is a secret's masked at any depth
 * (the service tokens sit under `services`, the NATS password under `cluster`), URLs without their password.
 */
export function maskedConfig(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const masked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (SECRET_NAME.test(key)) masked[key] = value === null || value === undefined || typeof value === "boolean" ? value : "[masked]";
    else if (typeof value === "string" && /^[a-z][a-z0-9+.-]*:\/\/[^/@]*@/i.test(value))
      masked[key] = value.replace(/\/\/([^/:@]*)(:[^/@]*)?@/, (_m, user: string, pass?: string) => `//${user}${pass ? ":[masked]" : ""}@`);
    else if (Array.isArray(value)) masked[key] = value.map((item: unknown) => (isRecord(item) ? maskedConfig(item) : item));
    else if (isRecord(value)) masked[key] = maskedConfig(value);
    else masked[key] = value;
  }
  return masked;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}
