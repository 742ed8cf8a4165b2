// The settings page's escalation policy of the project (CONTRACT "Alerting, third part"): the steps its
// checks without a policy of their own follow, each an `after` (a number and a unit, sent as seconds) and
// integrations to notify, through the admin API's rules (http/input.ts escalationOf), said as the check
// form says them, and the same pool call. A manager and up (the steps name integrations), and the admin token.
import type { Channel, Project } from "../../engine/model.ts";
import { unwrap } from "../errors.ts";
import { escalationOf } from "../alerting-input.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import type { Access, DashboardContext } from "./context.ts";
import { allows, permit } from "./permits.ts";
import type { DurationUnit } from "./duration-field.ts";
import { durationInputs, secondsOf, splitSeconds, unitOf } from "./duration-field.ts";
import { durationText } from "./format.ts";
import { plainFormError } from "./form-errors.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { csrfField } from "./page-frame.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

/** The form's steps as typed: each step's `after` as text with its unit, and its integrations' ids. */
export type ProjectEscalationForm = {
  readonly steps: readonly { readonly after: string; readonly unit: DurationUnit; readonly channels: readonly string[] }[];
  readonly error: string | null;
};

type SettingsHtml = (
  access: Access,
  project: Project,
  opts: { mute: null; escalation?: ProjectEscalationForm; notice?: string | null },
) => Promise<string>;

/** The form as the project's policy fills it. */
export function projectEscalationForm(project: Project): ProjectEscalationForm {
  const steps = project.escalation ?? [];
  return {
    steps: [0, 1].map((i) => {
      // in the largest unit that holds it whole; an absent step is empty, in minutes
      const { amount, unit } =
        steps[i] === undefined ? { amount: "", unit: "minutes" as const } : splitSeconds(Math.floor(steps[i].afterMs / 1000));
      return { after: amount, unit, channels: steps[i]?.channels ?? [] };
    }),
    error: null,
  };
}

/** The settings page's section: the policy's steps, a form for those who may change it. */
export function projectEscalationSection(
  viewer: Viewer,
  opts: {
    readonly project: Project;
    readonly channels: readonly Pick<Channel, "id" | "name" | "kind">[];
    readonly form: ProjectEscalationForm;
    readonly editable: boolean;
  },
): Html {
  const { form } = opts;
  const invalid = form.error === null ? "" : html` aria-invalid="true" aria-describedby="e-project-escalation"`;
  const step = (n: 0 | 1) => {
    const chosen = new Set(form.steps[n]?.channels ?? []);
    return html`<div class="escalation-step">${durationInputs({
      id: `step_${n + 1}_after`,
      idPrefix: "f-pe-",
      label: `Project escalation step ${n + 1}: after this long down and not acknowledged (1 minute and more)`,
      amount: form.steps[n]?.after ?? "",
      unit: form.steps[n]?.unit ?? "minutes",
      invalid,
      presets: false,
    })}
<label for="f-pe-${n + 1}-channels">Project escalation step ${n + 1}: also notify</label>
<select id="f-pe-${n + 1}-channels" name="step_${n + 1}_channels" multiple size="${Math.min(Math.max(opts.channels.length, 2), 6)}">
${opts.channels.map((c) => html`<option value="${c.id}"${chosen.has(c.id) ? html` selected` : ""}>${c.name === "" ? c.kind : `${c.name} (${c.kind})`}</option>`)}</select></div>`;
  };
  const current = opts.project.escalation ?? [];
  const names = new Map(opts.channels.map((c) => [c.id, c.name === "" ? c.kind : c.name]));
  const words =
    current.length === 0
      ? "None: an outage notifies its check's integrations only."
      : current
          .map(
            (s, i) =>
              `Step ${i + 1}: after ${durationText(s.afterMs)} down, also ${s.channels.map((id) => names.get(id) ?? "an integration").join(", ")}`,
          )
          .join("; ") + "; unless the outage is acknowledged.";
  return html`<h2>Escalation policy</h2>
<p class="project-escalation">${words}</p>
<p class="hint">The checks without an escalation policy of their own follow this one.</p>
${
  !opts.editable
    ? ""
    : html`${form.error === null ? "" : html`<p class="error" id="e-project-escalation" role="alert">${form.error}</p>`}
<form method="post" action="/projects/${opts.project.id}/escalation" class="check-form">${csrfField(viewer)}
${step(0)}${step(1)}
<button type="submit">Save escalation policy</button></form>`
}`;
}

/** Registers the policy's action; `settingsHtml` renders the settings page (with a rejected form). */
export function projectEscalationRoutes(ctx: DashboardContext, settingsHtml: SettingsHtml): void {
  const { deps, route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock } = deps;
  route("POST", "/projects/:project/escalation", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    permit(access, "integrations.change", {
      keys: false,
      refusal: "only the admin token, or a project's manager or owner, sets its escalation policy",
    });
    const typed = [1, 2].map((n) => ({
      after: (form.get(`step_${n}_after`) ?? "").trim(),
      unit: unitOf(form.get(`step_${n}_after_unit`) ?? ""), // none sent: seconds, as the API counts
      channels: form.getAll(`step_${n}_channels`),
    }));
    const asked = typed
      .filter((s) => s.after !== "" || s.channels.length > 0)
      .map((s) => ({ after: secondsOf(s.after, s.unit), channels: s.channels.join(",") }));
    const steps = escalationOf(asked);
    const at = clock.now();
    const changed = steps.ok ? await pool.changeProject(project.id, { kind: "setEscalation", steps: steps.value ?? [] }, at) : steps;
    if (!changed.ok) {
      return htmlResponse(
        await settingsHtml(access, project, {
          mute: null,
          escalation: { steps: typed, error: plainFormError(changed.failure, project) },
        }),
        400,
      );
    }
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "project.escalation_set",
      target: auditTarget.project(unwrap(changed)),
      at,
    });
    return redirect(`/projects/${project.id}/settings?done=escalation`);
  });
}

/** Whether the viewer may change the policy (the form is shown to them). */
export function mayChangeEscalation(access: Access): boolean {
  return allows(access, "integrations.change", { keys: false });
}
