// What the dashboard's route modules share: the signed-in request and the helpers the registration builds
// once (routes.ts) and hands to each group of routes.
import type { H3Event, HTTPResponse } from "h3";
import type { Caller } from "../../host/pool-api.ts";
import type { Check, Project } from "../../engine/model.ts";
import type { Failure } from "../../engine/outcome.ts";
import type { AppDeps } from "../deps.ts";
import type { Viewer } from "./page-frame.ts";
import type { CheckFormValues, WhatIf } from "./check-form-page.ts";
import type { Session } from "./sessions.ts";
import type { Role } from "../../engine/roles.ts";

/** A signed-in user as a request sees them: their role in the project the request is about; `admin`: an instance admin (the session's caller is "admin"). */
export type UserAccess = { readonly id: string; readonly email: string; readonly role: Role; readonly admin?: boolean };

/** A signed-in request: its session, what to render, and the caller behind it (for a user: their project and role in it). */
export type Access = { readonly session: Session; readonly viewer: Viewer; readonly caller: Caller | "admin"; readonly user?: UserAccess };

/** What a render of the check form needs besides the project: `uuid` is the edited check (not its own dependency). */
export type CheckForm = {
  readonly values: CheckFormValues;
  readonly error: Failure | null;
  readonly action: string;
  readonly title: string;
  readonly whatIf?: WhatIf | null;
  readonly uuid?: string;
  /** "Preview" was pressed: a simple period, which has no timetable to list, says how it works instead. */
  readonly previewAsked?: boolean;
};

export type DashboardContext = {
  readonly deps: AppDeps;
  /** Registers a page: errors become error pages, a missing session the sign-in page, POSTs are checked for cross-site origins. */
  readonly route: (method: "GET" | "POST", path: string, handler: (event: H3Event) => Promise<HTTPResponse>) => void;
  readonly requireAccess: (event: H3Event) => Access;
  /** Returns the form of a POST after checking its CSRF token and that the session may write. */
  readonly writeForm: (event: H3Event, access: Access) => Promise<URLSearchParams>;
  readonly projectFor: (access: Access, projectId: string) => Project;
  /** Returns the check named by a URL, with its project; uuid or (read-only keys) unique_key. */
  readonly checkFor: (access: Access, ref: string) => Promise<{ project: Project; check: Check; ref: string }>;
  /** The add/edit form; a failure is shown above the form and next to its field. */
  readonly formHtml: (viewer: Viewer, project: Project, opts: CheckForm) => Promise<string>;
  /** The edit form's settings tried on the check's logged pings: the API's simulate, as one line. */
  readonly whatIfOf: (project: Project, check: Check, values: CheckFormValues) => Promise<WhatIf>;
};
