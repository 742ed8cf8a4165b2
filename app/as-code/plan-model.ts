// The plan's shapes (plan.ts makes it, plan-channels.ts and plan-entries.ts the changes of each section,
// apply.ts carries it out): a change, the ids learnt while applying, a project's context, the phases' order,
// matching, and what becomes of a live entry the file does not name.
import type { AdminClient } from "../admin-client.ts";
import { call } from "../admin-client.ts";
import type { FileChannel, FileCheck, FileProject } from "./document.ts";
import type { LiveProjectState } from "./live-state.ts";

export type Verb = "create" | "update" | "delete";

/** Ids learnt while applying: the matched entries' from the start, the created ones' as they are made. */
export type Ids = {
  readonly projects: Map<FileProject, string>;
  readonly channels: Map<FileChannel, string>;
  readonly checks: Map<FileCheck, string>;
};

export type Change = {
  readonly verb: Verb;
  /** "project", "channel", "check", "status page", "maintenance window". */
  readonly what: string;
  /** The entry and its project, as the plan shows them: `check "nightly" in project "Backups"`. */
  readonly label: string;
  /** What changes (never a secret's value). */
  readonly details: readonly string[];
  /** Changes run in this order (then as listed). */
  readonly phase: number;
  /** Makes the change; answers what was done, for the line printed once it is. */
  readonly run: (client: AdminClient, ids: Ids) => Promise<string>;
};

export type Plan = {
  readonly changes: readonly Change[];
  /** Entries hcd has that the file does not name, kept because there was no --prune. */
  readonly unmanaged: readonly string[];
};

/** The file cannot be applied to this hcd as it is (a match that is ambiguous, a reference to nothing, ...); nothing was changed. */
export class PlanError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.problems = problems;
  }
}

/** The order of the phases: creations before the changes that name them, deletions last. */
export const PHASE = {
  project: 0,
  channel: 1,
  group: 2,
  channelUpdate: 3,
  groupUpdate: 4,
  escalation: 5,
  checkCreate: 6,
  checkUpdate: 7,
  pageDelete: 8,
  page: 9,
  maintenance: 10,
  checkDelete: 11,
  groupDelete: 12,
  channelDelete: 13,
  maintenanceDelete: 14,
} as const;

/** What a project's entries are planned against. */
export type ProjectContext = {
  readonly file: FileProject;
  readonly live: LiveProjectState | null;
  /** `project "Backups"` */
  readonly label: string;
  readonly prune: boolean;
  readonly ids: Ids;
  /** Every status page's slug on the server, with its project id. */
  readonly slugs: ReadonlyMap<string, string>;
  readonly problems: string[];
  readonly unmanaged: string[];
  /** The project's id at run time. */
  readonly projectId: () => string;
};

/** Matches file entries with live ones: by id first (where the file has one that exists here), then by name among the rest. */
export function matchEntries<F, L>(
  entries: readonly F[],
  live: readonly L[],
  idOf: (f: F) => string | undefined,
  liveId: (l: L) => string,
  nameOf: (f: F) => string,
  liveName: (l: L) => string,
): { matched: Map<F, L | null>; left: L[] } {
  const matched = new Map<F, L | null>();
  const taken = new Set<L>();
  for (const entry of entries) {
    const id = idOf(entry);
    const found = id === undefined ? undefined : live.find((l) => liveId(l) === id && !taken.has(l));
    if (found !== undefined) {
      matched.set(entry, found);
      taken.add(found);
    }
  }
  for (const entry of entries) {
    if (matched.has(entry)) continue;
    const found = live.find((l) => !taken.has(l) && liveName(l) === nameOf(entry));
    matched.set(entry, found ?? null);
    if (found !== undefined) taken.add(found);
  }
  return { matched, left: live.filter((l) => !taken.has(l)) };
}

/** A live entry the file does not name: deleted with --prune, else listed as kept. */
export function dropped(context: ProjectContext, what: string, name: string, phase: number, path: string): Change[] {
  const label = `${name} in ${context.label}`;
  if (!context.prune) {
    context.unmanaged.push(label);
    return [];
  }
  return [
    {
      verb: "delete",
      what,
      label,
      details: [],
      phase,
      run: async (client) => {
        await call(client, "DELETE", `/admin/v1/projects/${encodeURIComponent(context.projectId())}/${path}`);
        return `deleted ${label}`;
      },
    },
  ];
}
