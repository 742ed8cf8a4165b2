// The reference's per-project Prometheus exposition (hc/integrations/prometheus/views.py `metrics`):
// byte for byte the same text, so existing scrape configs and Grafana dashboards keep working; hcd's own
// families follow it under names of their own (CONTRACT "Alerting, third part": each check's last ping and
// last run duration).
import type { Check, Millis } from "../engine/model.ts";
import { statusAt } from "../engine/status.ts";
import { uniqueKeyOf } from "../host/unique-key.ts";

/** Escapes a label value as the reference does: backslash, double quote, newline. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/**
 * Returns the exposition of a project's checks at `at`, in the reference's order (checks by creation,
 * tags sorted) and format (classic text format, a blank line between families, no # EOF).
 */
export function renderProjectMetrics(checks: readonly Check[], at: Millis): string {
  // the reference orders by its internal id, i.e. by creation (a stable sort: ties keep the shard's order)
  const ordered = [...checks].sort((a, b) => a.createdAt - b.createdAt);
  const rows = ordered.map((check) => ({
    labels: `{name="${escapeLabel(check.name)}", tags="${escapeLabel(check.tags)}", unique_key="${uniqueKeyOf(check.uuid)}"}`,
    status: statusAt(check, at),
    started: check.lastStartAt !== null ? 1 : 0,
    tags: check.tags
      .split(" ")
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ""), // the reference's tags_list()
  }));
  const lines: string[] = [];
  const family = (name: string, help: string, values: readonly string[]) => {
    lines.push(`# HELP ${name} ${help}\n`, `# TYPE ${name} gauge\n`, ...values);
  };
  family(
    "hc_check_up",
    "Whether the check is currently up (1 for yes, 0 for no).",
    rows.map((r) => `hc_check_up${r.labels} ${r.status === "down" ? 0 : 1}\n`),
  );
  lines.push("\n");
  family(
    "hc_check_started",
    "Whether the check is currently started (1 for yes, 0 for no).",
    rows.map((r) => `hc_check_started${r.labels} ${r.started}\n`),
  );
  lines.push("\n");
  family(
    "hc_check_grace",
    "Whether the check is currently in the grace period (1 for yes, 0 for no).",
    rows.map((r) => `hc_check_grace${r.labels} ${r.status === "grace" ? 1 : 0}\n`),
  );
  lines.push("\n");
  family(
    "hc_check_paused",
    "Whether the check is currently paused (1 for yes, 0 for no).",
    rows.map((r) => `hc_check_paused${r.labels} ${r.status === "paused" ? 1 : 0}\n`),
  );

  const allTags = new Set<string>(),
    downTags = new Set<string>();
  let down = 0;
  for (const row of rows) {
    for (const tag of row.tags) allTags.add(tag);
    if (row.status === "down") {
      down++;
      for (const tag of row.tags) downTags.add(tag);
    }
  }
  lines.push("\n");
  // Python's sorted() on str: by code point, which is what comparing UTF-16 code units gives outside astral planes
  const sortedTags = [...allTags].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  family(
    "hc_tag_up",
    "Whether all checks with this tag are up (1 for yes, 0 for no).",
    sortedTags.map((tag) => `hc_tag_up{tag="${escapeLabel(tag)}"} ${downTags.has(tag) ? 0 : 1}\n`),
  );
  lines.push("\n");
  family("hc_checks_total", "The total number of checks.", [`hc_checks_total ${rows.length}\n`]);
  lines.push("\n");
  family("hc_checks_down_total", "The number of checks currently down.", [`hc_checks_down_total ${down}\n`]);
  lines.push("\n");
  // hcd's own: a check that never had one has no sample
  family(
    "hcd_check_last_ping_timestamp_seconds",
    "When the check's last success or failure signal arrived, in seconds since the Unix epoch.",
    ordered.flatMap((check, i) =>
      check.lastPingAt === null ? [] : [`hcd_check_last_ping_timestamp_seconds${rows[i].labels} ${check.lastPingAt / 1000}\n`],
    ),
  );
  lines.push("\n");
  family(
    "hcd_check_last_duration_seconds",
    "How long the check's last run took, from its start signal to its success or failure signal.",
    ordered.flatMap((check, i) =>
      check.lastDurationMs === null || check.lastDurationMs <= 0
        ? []
        : [`hcd_check_last_duration_seconds${rows[i].labels} ${check.lastDurationMs / 1000}\n`],
    ),
  );
  return lines.join("");
}
