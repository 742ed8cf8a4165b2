// Reading an apply file: YAML (the `yaml` package, YAML 1.2 core schema: no custom tags, no code), then
// `${NAME}` from the environment (env-refs.ts), then the published JSON Schema (ajv), then what a schema
// cannot say: names unique where entries are matched by them, references that name something of the file,
// no dependency cycle, and every value through the very parser the server uses. Every problem is reported
// at once, each with its line and path; nothing reaches a server before the file is whole.
import { Ajv } from "ajv";
import type { ErrorObject } from "ajv";
import { LineCounter, parseDocument } from "yaml";
import type { Document } from "yaml";
import type { ServiceKind } from "../../engine/model.ts";
import { checkRequestOf } from "../../http/input.ts";
import { escalationOf } from "../../http/alerting-input.ts";
import { channelInputOf, maintenanceInputOf } from "../../http/admin-input.ts";
import { statusPageInputOf } from "../../http/status/status-page-input.ts";
import { SERVICE_KIND_MODULES } from "../../notify/kinds/index.ts";
import type { FileCheck, FileEscalationStep, FileProject, HcdFile } from "./document.ts";
import { isoSecond } from "./document.ts";
import type { FilePath } from "./env-refs.ts";
import { substituteEnv } from "./env-refs.ts";
import { FILE_SCHEMA } from "./file-schema.ts";
import { checkBody, stepsBody } from "./requests.ts";

export type FileProblem = { readonly path: FilePath; readonly message: string };

/** The file is not one apply can take; `problems` says everything wrong, each where. */
export class FileError extends Error {
  readonly problems: readonly (FileProblem & { line: number | null })[];
  constructor(source: string, problems: readonly (FileProblem & { line: number | null })[]) {
    super(
      problems
        .map((p) => `${source}${p.line === null ? "" : `:${p.line}`}: ${formatPath(p.path)}${p.path.length > 0 ? ": " : ""}${p.message}`)
        .join("\n"),
    );
    this.problems = problems;
  }
}

/** A path as the messages write it: projects[0].checks[2].timeout. */
export function formatPath(path: FilePath): string {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? part : `.${part}`)).join("");
}

let compiled: ReturnType<Ajv["compile"]> | null = null;
function validator(): ReturnType<Ajv["compile"]> {
  compiled ??= new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false }).compile(FILE_SCHEMA);
  return compiled;
}

/** Reads the text of an apply file (`source` names it in messages) with the environment `env`; throws FileError. */
export function readApplyFile(text: string, source: string, env: Readonly<Record<string, string | undefined>>): HcdFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: true,
    prettyErrors: true,
    version: "1.2",
    schema: "core",
    strict: true,
  });
  const lineOf = (path: FilePath): number | null => lineIn(doc, lines, path);
  const fail = (problems: readonly FileProblem[]): never => {
    throw new FileError(
      source,
      problems.map((p) => ({ ...p, line: lineOf(p.path) })),
    );
  };
  const syntax = [...doc.errors, ...doc.warnings];
  if (syntax.length > 0) {
    throw new FileError(
      source,
      syntax.map((e) => ({ path: [], message: `${e.message.split("\n")[0]}`, line: e.linePos?.[0].line ?? null })),
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }); // aliases stay few: a small file never expands into a huge one
  } catch (error) {
    fail([{ path: [], message: error instanceof Error ? error.message : String(error) }]);
  }
  const substituted = substituteEnv(raw, env);
  if (substituted.problems.length > 0) fail(substituted.problems);
  const document = coercePlaceholders(substituted.document, substituted.whole);
  const validate = validator();
  if (!validate(document)) fail(schemaProblems(validate.errors ?? []));
  const file = document as HcdFile;
  const problems = meaningProblems(file);
  if (problems.length > 0) fail(problems);
  return file;
}

/**
 * A whole value that was one `${NAME}` is text; where the schema then wants a number or a yes-or-no, the
 * text is read as one ("3600", "true"), so a variable may stand for any value, not only a string.
 */
function coercePlaceholders(document: unknown, whole: readonly FilePath[]): unknown {
  if (whole.length === 0) return document;
  const validate = validator();
  if (validate(document)) return document;
  const wanted = new Map<string, string>(); // JSON pointer → the type the schema wants there
  for (const error of validate.errors ?? []) if (error.keyword === "type") wanted.set(error.instancePath, String(error.params.type));
  for (const path of whole) {
    const type = wanted.get(path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join(""));
    if (type === undefined) continue;
    const holder = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], document) as Record<
      string | number,
      unknown
    >;
    const text = String(holder[path[path.length - 1]]).trim();
    if (/integer|number/.test(type) && /^-?\d+(\.\d+)?$/.test(text)) holder[path[path.length - 1]] = Number(text);
    else if (/boolean/.test(type) && (text === "true" || text === "false")) holder[path[path.length - 1]] = text === "true";
    else if (/null/.test(type) && text === "null") holder[path[path.length - 1]] = null;
  }
  return document;
}

/** The schema's errors as problems: one per place, "if"/"anyOf" wrappers left out when a precise one is there. */
function schemaProblems(errors: readonly ErrorObject[]): FileProblem[] {
  const precise = errors.filter(
    (e) =>
      e.keyword !== "if" &&
      !(
        e.keyword === "anyOf" &&
        errors.some((o) => o !== e && o.instancePath.startsWith(e.instancePath) && o.keyword !== "anyOf" && o.keyword !== "if")
      ),
  );
  const seen = new Set<string>();
  const problems: FileProblem[] = [];
  for (const error of precise.length > 0 ? precise : errors) {
    const path = pathOf(error.instancePath);
    let message = error.message ?? "is not valid";
    if (error.keyword === "additionalProperties") message = `has an unknown field: ${String(error.params.additionalProperty)}`;
    else if (error.keyword === "required") message = `needs ${String(error.params.missingProperty)}`;
    else if (error.keyword === "enum")
      message = `must be one of: ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    else if (error.keyword === "not" && /\/checks\/\d+$/.test(error.instancePath))
      message = "has both timeout and schedule: a check has one or the other";
    else if (error.keyword === "dependencies")
      message = `has ${String(error.params.property)} without ${String(error.params.missingProperty)}`;
    const key = `${formatPath(path)}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ path, message });
  }
  return problems;
}

function pathOf(pointer: string): FilePath {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((part) => {
      const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
      return /^\d+$/.test(key) ? Number(key) : key;
    });
}

/** The line of the value at `path` in the YAML document (1-based), or null. */
function lineIn(doc: Document, lines: LineCounter, path: FilePath): number | null {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth), true) as { range?: [number, number, number] } | undefined;
    if (node?.range !== undefined) return lines.linePos(node.range[0]).line;
  }
  return null;
}

/** What the schema cannot say, and every value through the server's own parsers. */
function meaningProblems(file: HcdFile): FileProblem[] {
  const problems: FileProblem[] = [];
  const at = (path: FilePath, message: string) => problems.push({ path, message });
  uniqueBy(file.projects, (p) => p.id, ["projects"], "id", at);
  uniqueBy(file.projects, (p) => (p.id === undefined ? p.name : undefined), ["projects"], "name (give each its id)", at);
  const pageSlugs = new Map<string, FilePath>();
  file.projects.forEach((project, i) => {
    if (project.id === undefined && project.name === "")
      at(["projects", i, "name"], "is empty: an entry without id is matched by its name");
    projectProblems(project, ["projects", i], at);
    (project.status_pages ?? []).forEach((page, j) => {
      const held = pageSlugs.get(page.slug);
      if (held !== undefined)
        at(
          ["projects", i, "status_pages", j, "slug"],
          `is also the slug of ${formatPath(held)}: a status page's slug is unique on the server`,
        );
      pageSlugs.set(page.slug, ["projects", i, "status_pages", j]);
    });
  });
  return problems;
}

function projectProblems(project: FileProject, base: FilePath, at: (path: FilePath, message: string) => void): void {
  const channels = project.channels ?? [];
  uniqueBy(
    channels,
    (c) => (c.id === undefined && c.name !== "" ? c.name : undefined),
    [...base, "channels"],
    "name (give each its id)",
    at,
  );
  uniqueBy(channels, (c) => c.id, [...base, "channels"], "id", at);
  /** The channel a reference names: by id, else by a name only one channel has; undefined after noting an ambiguous one. */
  const channelRef = (ref: string, path?: FilePath) => {
    const byId = channels.find((c) => c.id === ref);
    if (byId !== undefined) return byId;
    const byName = channels.filter((c) => c.name === ref);
    if (byName.length > 1 && path !== undefined) at(path, `names ${byName.length} channels (${ref}): name it by its id`);
    return byName.length === 1 ? byName[0] : undefined;
  };
  channels.forEach((channel, i) => {
    const path = [...base, "channels", i];
    if (channel.id === undefined && channel.name === "") at([...path, "name"], "is empty: an entry without id is matched by its name");
    if ((channel.value === undefined) === (channel.needs_settings === undefined)) {
      at(
        path,
        channel.value === undefined ? "needs a value (or needs_settings: true)" : "has both a value and needs_settings: one or the other",
      );
      return;
    }
    if (channel.needs_settings === true) return;
    if (channel.kind === "group") {
      const members = (channel.value as { channels: string[] }).channels;
      members.forEach((ref, j) => {
        const member = channelRef(ref, [...path, "value", "channels", j]);
        if (member === undefined && channels.every((c) => c.name !== ref))
          at([...path, "value", "channels", j], `names no channel of this project: ${ref}`);
        else if (member?.kind === "group") at([...path, "value", "channels", j], `names a group (${ref}): a group cannot contain a group`);
      });
      return;
    }
    const parsed = channelInputOf({ kind: channel.kind, name: channel.name, value: channel.value }, { parse: parseAnyService });
    if (!parsed.ok) at([...path, "value"], reasonText(parsed.failure));
  });

  /** Each escalation step's channels name channels of the file's project. */
  const stepRefs = (steps: readonly FileEscalationStep[], path: FilePath) =>
    steps.forEach((step, i) =>
      step.channels.forEach((ref, j) => {
        if (channelRef(ref, [...path, i, "channels", j]) === undefined && channels.every((c) => c.name !== ref))
          at([...path, i, "channels", j], `names no channel of this project: ${ref}`);
      }),
    );
  if (project.escalation !== undefined) {
    const policy = escalationOf(stepsBody(stepsOfAny(project.escalation) ?? []));
    if (!policy.ok) at([...base, "escalation"], reasonText(policy.failure));
    if (project.channels !== undefined) stepRefs(project.escalation, [...base, "escalation"]);
  }

  const checks = project.checks ?? [];
  uniqueBy(checks, (c) => c.uuid, [...base, "checks"], "uuid", at);
  uniqueBy(
    checks,
    (c) => (c.uuid === undefined && c.slug !== "" ? c.slug : undefined),
    [...base, "checks"],
    "slug (give each its uuid)",
    at,
  );
  const checkRefs = (ref: string) => checks.filter((c) => c.uuid === ref || (c.slug !== undefined && c.slug !== "" && c.slug === ref));
  const resolve = (ref: string, path: FilePath): FileCheck | null => {
    const found = checkRefs(ref);
    if (found.length === 1) return found[0];
    at(
      path,
      found.length === 0
        ? `names no check of this file's project: ${ref}`
        : `names ${found.length} checks (slug ${ref}): name it by its uuid`,
    );
    return null;
  };
  checks.forEach((check, i) => {
    const path = [...base, "checks", i];
    if (check.uuid === undefined && (check.slug ?? "") === "") at(path, "needs a uuid or a slug: a check is matched by one of them");
    if (check.muted_until !== undefined && check.muted_until !== null && isoSecond(check.muted_until) === null)
      at([...path, "muted_until"], "is not an ISO 8601 date and time");
    const request = checkRequestOf(
      checkBody(check, { channels: [], dependsOn: [], escalation: stepsOfAny(check.escalation ?? null) }),
      null,
    );
    if (!request.ok)
      at(
        request.failure.code === "invalid" && request.failure.field !== "" ? [...path, request.failure.field] : path,
        reasonText(request.failure),
      );
    if (project.channels !== undefined) {
      (check.channels ?? []).forEach((ref, j) => {
        if (channelRef(ref, [...path, "channels", j]) === undefined && channels.every((c) => c.name !== ref))
          at([...path, "channels", j], `names no channel of this project: ${ref}`);
      });
      stepRefs(check.escalation ?? [], [...path, "escalation"]);
    }
    (check.depends_on ?? []).forEach((ref, j) => {
      const target = resolve(ref, [...path, "depends_on", j]);
      if (target === check) at([...path, "depends_on", j], "names the check itself");
    });
  });
  const cycle = dependencyCycle(checks, (ref) => {
    const found = checkRefs(ref);
    return found.length === 1 ? found[0] : null;
  });
  if (cycle !== null) at([...base, "checks", checks.indexOf(cycle[0])], `depends on itself through ${cycle.map(labelOf).join(" → ")}`);

  (project.status_pages ?? []).forEach((page, i) => {
    const path = [...base, "status_pages", i];
    if (project.checks !== undefined) page.checks.forEach((ref, j) => resolve(ref, [...path, "checks", j]));
    // the server's rules over stand-in uuids, one per reference: a group's check not among the page's is refused as there
    const standIns = new Map<string, string>();
    const standIn = (ref: string) => {
      if (!standIns.has(ref)) standIns.set(ref, `00000000-0000-4000-8000-${String(standIns.size).padStart(12, "0")}`);
      return standIns.get(ref) ?? "";
    };
    const input = statusPageInputOf(
      {
        slug: page.slug,
        title: page.title,
        description: page.description,
        logo: page.logo,
        checks: [...new Set(page.checks)].map(standIn),
        groups: page.groups?.map((g) => ({ name: g.name, checks: g.checks.map(standIn) })),
      },
      0,
    );
    if (!input.ok && input.failure.code === "invalid" && input.failure.field !== "checks")
      at(
        [...path, input.failure.field],
        [...standIns].reduce((text, [ref, uuid]) => text.replaceAll(uuid, ref), reasonText(input.failure)),
      );
    if (new Set(page.checks).size !== page.checks.length) at([...path, "checks"], "names a check twice");
  });

  const windows = project.maintenance ?? [];
  uniqueBy(windows, (w) => w.id, [...base, "maintenance"], "id", at);
  uniqueBy(windows, (w) => (w.id === undefined ? w.name : undefined), [...base, "maintenance"], "name (give each its id)", at);
  windows.forEach((window, i) => {
    if (window.id === undefined && window.name === "")
      at([...base, "maintenance", i, "name"], "is empty: an entry without id is matched by its name");
    const input = maintenanceInputOf({ name: window.name, schedule: window.schedule, tz: window.tz ?? "UTC", duration: window.duration });
    if (!input.ok)
      at(
        input.failure.code === "invalid" ? [...base, "maintenance", i, input.failure.field] : [...base, "maintenance", i],
        reasonText(input.failure),
      );
  });
}

/** Steps as the API's checks see them, each channel reference standing for some channel (the plan resolves them). */
function stepsOfAny(steps: readonly FileEscalationStep[] | null) {
  return steps === null ? null : steps.map((step) => ({ after: step.after, channels: step.channels.length === 0 ? [] : [ANY_CHANNEL] }));
}
const ANY_CHANNEL = "00000000-0000-4000-8000-000000000000";

/** A service kind's value checked by its own parser, whether or not this process's settings offer the kind (the server's do). */
function parseAnyService(kind: ServiceKind, value: unknown) {
  return SERVICE_KIND_MODULES[kind].parse(value);
}

function reasonText(failure: { code: string; field?: string; reason?: string }): string {
  return failure.code === "invalid" ? `${failure.reason}` : failure.code;
}

function labelOf(check: FileCheck): string {
  return check.slug !== undefined && check.slug !== "" ? check.slug : (check.uuid ?? "?");
}

/** A chain of depends_on that comes back to where it started, or null. */
function dependencyCycle(checks: readonly FileCheck[], find: (ref: string) => FileCheck | null): FileCheck[] | null {
  const state = new Map<FileCheck, "open" | "done">();
  const walk = (check: FileCheck, trail: FileCheck[]): FileCheck[] | null => {
    if (state.get(check) === "done") return null;
    if (state.get(check) === "open") return [...trail.slice(trail.indexOf(check)), check];
    state.set(check, "open");
    for (const ref of check.depends_on ?? []) {
      const next = find(ref);
      const cycle = next === null || next === check ? null : walk(next, [...trail, check]);
      if (cycle !== null) return cycle;
    }
    state.set(check, "done");
    return null;
  };
  for (const check of checks) {
    const cycle = walk(check, []);
    if (cycle !== null) return cycle;
  }
  return null;
}

function uniqueBy<T>(
  items: readonly T[],
  key: (item: T) => string | undefined,
  base: FilePath,
  what: string,
  at: (path: FilePath, message: string) => void,
): void {
  const first = new Map<string, number>();
  items.forEach((item, i) => {
    const value = key(item);
    if (value === undefined) return;
    const held = first.get(value);
    if (held !== undefined) at([...base, i], `has the same ${what} as ${formatPath([...base, held])}: ${value}`);
    else first.set(value, i);
  });
}
