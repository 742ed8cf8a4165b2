// `hcd simulate --check UUID [...]`: POST /api/v3/checks/<uuid>/simulate on the running server, printing its JSON.
// Goes through the server because the server owns the ping log while it runs; the key is a project's API key.

export const SIMULATE_HELP = `  hcd simulate --check UUID [--timeout S] [--grace S] [--schedule EXPR] [--tz TZ]
        [--failure-threshold N] [--max-duration S] [--min-duration S] [--max-runs-per-period N]
        [--alert-on-overlap true|false] [--since ISO-8601] --url URL --key API_KEY
        the check's logged pings replayed with these settings: the flips, down count and downtime
        they would have given (changes nothing); --key or HCD_API_KEY: its project's read-write or
        read-only key`;

/** The flags passed on as fields of the request body, with the field each becomes. */
const FIELDS = [
  ["timeout", "timeout"],
  ["grace", "grace"],
  ["schedule", "schedule"],
  ["tz", "tz"],
  ["failure-threshold", "failure_threshold"],
  ["max-duration", "max_duration"],
  ["min-duration", "min_duration"],
  ["max-runs-per-period", "max_runs_per_period"],
  ["alert-on-overlap", "alert_on_overlap"],
  ["since", "since"],
] as const;
const NUMERIC = new Set(["timeout", "grace", "failure_threshold", "max_duration", "min_duration", "max_runs_per_period"]);
const BOOLEAN = new Set(["alert_on_overlap"]);

/** Runs `hcd simulate`; returns the exit status (0 ok, 1 refused or failed, 2 usage error). */
export async function runSimulate(
  options: Readonly<Record<string, string | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const uuid = options["check"];
  const url = options["url"] ?? env.HCD_URL;
  const key = options["key"] ?? env.HCD_API_KEY;
  if (uuid === undefined || url === undefined || key === undefined) {
    console.error(`hcd: simulate needs --check, --url (or HCD_URL) and --key (or HCD_API_KEY)\n\n${SIMULATE_HELP}`);
    return 2;
  }
  const body: Record<string, unknown> = {};
  for (const [flag, field] of FIELDS) {
    const raw = options[flag];
    // numbers go as numbers; anything else as it was typed, for the server to refuse with its usual text
    if (raw === undefined) continue;
    body[field] =
      NUMERIC.has(field) && /^\d+$/.test(raw)
        ? Number(raw)
        : BOOLEAN.has(field) && (raw === "true" || raw === "false")
          ? raw === "true"
          : raw;
  }
  const path = `api/v3/checks/${encodeURIComponent(uuid)}/simulate`;
  const res = await fetch(new URL(path, url.endsWith("/") ? url : url + "/"), {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = { error: text };
  }
  console.log(JSON.stringify(json, null, 2));
  return res.status < 400 ? 0 : 1;
}
