// `hcd export`: what hcd holds, as the YAML file `hcd apply -f` takes back (document.ts), read through the
// admin API (live-state.ts). Every entry carries its id, so applying the file where it came from matches
// each exactly; elsewhere entries are matched by name and slug. A check's settings are written when they
// differ from the defaults. Stored secrets (webhook and chat URLs, tokens, keys: secrets.ts) are written as
// `${NAME}` placeholders that apply reads from the environment, unless `includeSecrets`.
import { Document } from "yaml";
import type { Scalar } from "yaml";
import type { AdminClient } from "../admin-client.ts";
import type { CheckSettings } from "./document.ts";
import { CHECK_DEFAULTS, CHECK_SETTING_NAMES } from "./document.ts";
import type { LiveChannel, LiveCheck, LiveProjectState } from "./live-state.ts";
import type { LiveEscalationStep } from "./live-state.ts";
import { escalationOfLive, idsOf, listProjects, readProject, settingsOfLive } from "./live-state.ts";
import { secretFieldsOf } from "./secrets.ts";

export type ExportOptions = {
  /** One project (its id); absent: every project. */
  readonly projectId?: string;
  /** Write stored secrets in clear instead of `${NAME}` placeholders. */
  readonly includeSecrets: boolean;
  /** When the export was made, for the file's first comment. */
  readonly at: Date;
};

/** A secret written as a placeholder: the variable, and what it stands for. */
type Placeholder = { readonly variable: string; readonly what: string; readonly path: (string | number)[] };

export class ExportError extends Error {}

/** Returns the YAML text of the export. */
export async function exportText(client: AdminClient, options: ExportOptions): Promise<string> {
  const projects = await listProjects(client);
  const chosen = options.projectId === undefined ? projects : projects.filter((p) => p.id === options.projectId);
  if (chosen.length === 0 && options.projectId !== undefined) throw new ExportError(`no project ${options.projectId}`);
  const states: LiveProjectState[] = [];
  for (const project of chosen) states.push(await readProject(client, project));
  const placeholders: Placeholder[] = [];
  const variables = new Set<string>();
  const document = {
    version: 1,
    projects: states.map((state, i) =>
      projectEntry(
        state,
        (what, wanted) => {
          let variable = wanted,
            n = 2;
          while (variables.has(variable)) variable = `${wanted}_${n++}`;
          variables.add(variable);
          const placeholder = { variable, what, path: ["projects", i] as (string | number)[] };
          placeholders.push(placeholder);
          return placeholder;
        },
        options.includeSecrets,
      ),
    ),
  };
  const doc = new Document(document);
  for (const p of placeholders) {
    const node = doc.getIn(p.path, true) as Scalar | undefined;
    if (node !== undefined) node.comment = " secret: read from the environment";
  }
  doc.commentBefore = header(options, placeholders);
  return doc.toString({ lineWidth: 0 });
}

function header(options: ExportOptions, placeholders: readonly Placeholder[]): string {
  const lines = [
    " yaml-language-server: $schema=hcd-apply.schema.json",
    ` hcd export, ${options.at.toISOString()}: \`hcd apply -f <this file>\` makes hcd match it (schema: \`hcd schema\`).`,
  ];
  if (options.includeSecrets) lines.push(" This file holds the channels' secrets in clear: keep it as you keep them.");
  else if (placeholders.length > 0) {
    lines.push(" Secrets are not written: each ${NAME} below is read from the environment by `hcd apply`. Set:");
    for (const p of placeholders) lines.push(`   ${p.variable}: ${p.what}`);
  }
  return lines.join("\n");
}

type SecretNamer = (what: string, wanted: string) => Placeholder;

function projectEntry(state: LiveProjectState, secret: SecretNamer, includeSecrets: boolean): Record<string, unknown> {
  const { project } = state;
  const channelRef = refNamer(state.channels.map((c) => ({ id: c.id, name: c.name })));
  const checkRef = refNamer(state.checks.map((c) => ({ id: c.uuid, name: c.slug })));
  const entry: Record<string, unknown> = {
    id: project.id,
    name: project.name,
    check_limit: project.check_limit,
    ping_log_limit: project.ping_log_limit,
    ping_body_limit: project.ping_body_limit,
  };
  if (state.escalation.length > 0) entry.escalation = stepsEntry(state.escalation, channelRef);
  entry.channels = state.channels.map((channel, j) =>
    channelEntry(
      channel,
      channelRef,
      includeSecrets
        ? null
        : (field, leaf) => {
            const placeholder = secret(
              `project ${JSON.stringify(project.name)}, channel ${JSON.stringify(channel.name)} (${channel.kind}), ${field}`,
              envName(["HCD", project.name, channel.name === "" ? channel.kind : channel.name, field]),
            );
            placeholder.path.push("channels", j, "value", ...leaf);
            return placeholder.variable;
          },
    ),
  );
  entry.checks = state.checks.map((check) => checkEntry(check, channelRef, checkRef));
  entry.status_pages = state.statusPages.map((page) => ({
    slug: page.slug,
    title: page.title,
    ...(page.description === undefined ? {} : { description: page.description }),
    ...(page.logo === undefined ? {} : { logo: page.logo }),
    checks: page.checks.map(checkRef),
    ...(page.groups === undefined ? {} : { groups: page.groups.map((g) => ({ name: g.name, checks: g.checks.map(checkRef) })) }),
  }));
  entry.maintenance = state.maintenance.map((w) => ({ id: w.id, name: w.name, schedule: w.schedule, tz: w.tz, duration: w.duration }));
  return entry;
}

/** How the file names an entry: by its name when that is unique and not empty, else by its id. */
function refNamer(entries: readonly { id: string; name: string }[]): (id: string) => string {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.name, (counts.get(e.name) ?? 0) + 1);
  return (id) => {
    const name = entries.find((e) => e.id === id)?.name;
    return name !== undefined && name !== "" && counts.get(name) === 1 && !/^[0-9a-f]{8}-/.test(name) ? name : id;
  };
}

/** A secret's placeholder for the value at `leaf` inside the channel's value (field: what it is); null = secrets in clear. */
type Hider = ((field: string, leaf: (string | number)[]) => string) | null;

function channelEntry(channel: LiveChannel, ref: (id: string) => string, hide: Hider): Record<string, unknown> {
  const head = {
    id: channel.id,
    name: channel.name,
    kind: channel.kind,
    ...(channel.new_checks === false ? { new_checks: false } : {}),
    ...(channel.every_failure === true ? { every_failure: true } : {}),
  };
  if (channel.needs_settings === true) return { ...head, needs_settings: true };
  let value: unknown;
  if (channel.kind === "group") {
    value = {
      channels: idsOf((channel.value as { channels?: unknown }).channels)
        .map(ref)
        .sort(),
    };
  } else {
    value = literal(channel.value);
    if (hide !== null) {
      for (const { leaf, label } of secretFieldsOf(channel.kind, channel.value)) {
        const variable = `\${${hide(label, [...leaf])}}`;
        if (leaf.length === 0) value = variable;
        else setIn(value as Record<string, unknown>, leaf, variable);
      }
    }
  }
  return { ...head, value };
}

function checkEntry(check: LiveCheck, channelRef: (id: string) => string, checkRef: (uuid: string) => string): Record<string, unknown> {
  const settings = settingsOfLive(check);
  const entry: Record<string, unknown> = { uuid: check.uuid };
  for (const name of CHECK_SETTING_NAMES) {
    const value = settings[name];
    if (name === "tz") continue; // with its schedule, below
    if (name === "timeout" && value === null) continue;
    if (name === "schedule") {
      if (value !== null) {
        entry.schedule = literal(value);
        if (settings.tz !== "UTC") entry.tz = settings.tz;
      }
      continue;
    }
    if (!differs(value, CHECK_DEFAULTS[name as keyof CheckSettings])) continue;
    entry[name] = literal(value);
  }
  // sorted by what the file names them by: ids differ from one hcd to another, names do not
  const channels = idsOf(check.channels).map(channelRef).sort();
  if (channels.length > 0) entry.channels = channels;
  const dependsOn = idsOf(check.depends_on).map(checkRef).sort();
  if (dependsOn.length > 0) entry.depends_on = dependsOn;
  const escalation = escalationOfLive(check);
  if (escalation !== null) entry.escalation = stepsEntry(escalation, channelRef); // [] too: none, not the project's
  return entry;
}

/** An escalation policy as the file writes it: each step's channels by their names. */
function stepsEntry(steps: readonly LiveEscalationStep[], channelRef: (id: string) => string): Record<string, unknown>[] {
  return steps.map((step) => ({ after: step.after, channels: idsOf(step.channels).map(channelRef).sort() }));
}

function differs(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) !== JSON.stringify(b);
}

/** A value with every `${` written as `$${`, so that apply reads the text back as it is, not as a variable. */
function literal(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("${", () => "$${"); // a function: "$$" in a replacement string is one "$"
  if (Array.isArray(value)) return value.map(literal);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]));
  return value;
}

function setIn(target: Record<string, unknown>, path: readonly (string | number)[], value: unknown): void {
  const holder = path
    .slice(0, -1)
    .reduce<Record<string | number, unknown>>((node, key) => node[key] as Record<string | number, unknown>, target);
  holder[path[path.length - 1]] = value;
}

/** An environment variable's name from its parts: upper-case letters, digits and "_". */
function envName(parts: readonly string[]): string {
  return parts
    .map((part) =>
      part
        .normalize("NFKD")
        .replace(/[^A-Za-z0-9]+/g, "_")
        .replace(/^_+|_+$/g, "")
        .toUpperCase(),
    )
    .filter((p) => p !== "")
    .join("_");
}
