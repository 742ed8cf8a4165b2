// The form of one notification kind, to add an integration or edit one: a labelled input per field of
// its value (notify/kinds/ module fields, or kind-catalog.ts's for the first five), each field's error
// next to it, secrets as password inputs never shown back (left empty on an edit, the stored one is kept
// unless the destination changed), and the "add to new checks" switch. Also the posted inputs → a value.
import type { Channel, ServiceFields } from "../../engine/model.ts";
import type { KindFormField } from "../deps.ts";
import { valueText } from "../../lib/value-text.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

export type KindFormView = {
  readonly action: string;
  readonly csrf: string;
  readonly kind: string;
  readonly fields: readonly KindFormField[];
  /** The current values: what was posted, or (editing) what is stored; secrets are never rendered. */
  readonly values: Readonly<Record<string, unknown>>;
  readonly name: string;
  readonly newChecks: boolean;
  /** every_failure: told of every failure while a check is down, not only of the change. */
  readonly everyFailure: boolean;
  readonly editing: boolean;
  /** Each field's problem by field name ("name" for the label); "" = the form's own (shown above it). */
  readonly errors: Readonly<Record<string, string>>;
  /** A group's choices: the project's other integrations. */
  readonly members?: readonly Channel[];
  readonly submit: string;
};

function fieldInput(view: KindFormView, field: KindFormField): Html {
  const id = `k-${field.name}`;
  const name = `f.${field.name}`;
  const error = view.errors[field.name];
  const described = error === undefined ? "" : html` aria-invalid="true" aria-describedby="${id}-error"`;
  const current = view.values[field.name] ?? (view.editing ? undefined : field.initial);
  const shown = valueText(current);
  const secret = field.input === "secret";
  const required = field.required && !(view.editing && secret) ? html` required` : "";
  let control: Html;
  if (field.input === "bool") {
    const on =
      current === undefined ? !view.editing : current === true || (current !== false && Number(current) !== 0 && current !== "false");
    control = html`<input id="${id}" name="${name}" type="checkbox"${on ? html` checked` : ""}${described}>`;
  } else if (field.input === "select") {
    control = html`<select id="${id}" name="${name}"${described}>${(field.options ?? []).map(([value, label]) => html`<option value="${value}"${value === shown ? html` selected` : ""}>${label}</option>`)}</select>`;
  } else if (field.input === "textarea") {
    control = html`<textarea id="${id}" name="${name}" rows="3"${described}>${shown}</textarea>`;
  } else if (field.name === "channels" && view.members !== undefined) {
    // a group: its members picked from the project's integrations
    const picked = new Set(shown.split(",").filter((member) => member !== ""));
    control = html`<fieldset id="${id}"${described}>${view.members.map((member) => html`<label class="choice"><input type="checkbox" name="${name}" value="${member.id}"${picked.has(member.id) ? html` checked` : ""}> ${member.name === "" ? "(unnamed)" : member.name} (${member.kind})</label>`)}</fieldset>`;
  } else if (secret && field.input === "secret" && field.name.startsWith("headers_")) {
    control = html`<textarea id="${id}" name="${name}" rows="2" autocomplete="off"${described}></textarea>`;
  } else {
    const type = secret ? "password" : field.input === "number" ? "number" : "text";
    control = html`<input id="${id}" name="${name}" type="${type}" value="${secret ? "" : shown}"${required} autocomplete="off"${described}>`;
  }
  const hint =
    view.editing && secret ? `${field.hint === undefined ? "" : `${field.hint}; `}leave empty to keep the stored one` : field.hint;
  return html`<div class="field"><label for="${id}">${field.label}</label>${control}${hint === undefined ? "" : html`<span class="hint">${hint}</span>`}${error === undefined ? "" : html`<span class="error field-error" id="${id}-error">${error}</span>`}</div>`;
}

/** The whole form: label, the kind's fields, "add to new checks", and the submit button. */
export function kindFormHtml(view: KindFormView): Html {
  const nameError = view.errors.name;
  return html`${view.errors[""] === undefined ? "" : html`<p class="error" role="alert">${view.errors[""]}</p>`}
<form method="post" action="${view.action}" class="check-form kind-form" novalidate><input type="hidden" name="csrf" value="${view.csrf}"><input type="hidden" name="form" value="fields">
<div class="field"><label for="k-name">Name</label><input id="k-name" name="name" maxlength="100" value="${view.name}"${nameError === undefined ? "" : html` aria-invalid="true" aria-describedby="k-name-error"`}><span class="hint">how this integration is listed (optional)</span>${nameError === undefined ? "" : html`<span class="error field-error" id="k-name-error">${nameError}</span>`}</div>
${view.fields.map((field) => fieldInput(view, field))}
<div class="field"><label class="choice"><input type="checkbox" name="new_checks" value="1"${view.newChecks ? html` checked` : ""}> Add to new checks</label><span class="hint">new checks (and checks a ping creates) get this integration</span></div>
<div class="field"><label class="choice"><input type="checkbox" name="every_failure" value="1"${view.everyFailure ? html` checked` : ""}> Notify on every failure</label><span class="hint">not only when a check goes down: each further failure while it is down too</span></div>
<button type="submit">${view.submit}</button></form>`;
}

/**
 * Puts the stored secret back in each secret field the edit form left empty (the form never shows it),
 * unless a target field (where the message and its secrets go: a server URL, a site) changed: a stored
 * secret never follows a new destination, so then each secret must be typed again (`problem` names it).
 */
export function keptSecrets(
  value: Record<string, unknown>,
  fields: readonly KindFormField[],
  stored: ServiceFields,
): { value: Record<string, unknown> } | { problem: string; field: string } {
  const kept = { ...value };
  const isEmpty = (name: string) => valueText(value[name]) === "";
  const moved = fields.find(
    (field) =>
      field.target === true &&
      !(field.input === "secret" && isEmpty(field.name)) &&
      valueText(value[field.name]) !== String(stored[field.name] ?? ""),
  );
  for (const field of fields) {
    if (field.input !== "secret" || !isEmpty(field.name) || stored[field.name] === undefined || stored[field.name] === "") continue;
    if (moved !== undefined)
      return {
        field: field.name,
        problem: `type the ${field.label} again: the ${moved.label} changed, and a stored secret is never sent to a new destination`,
      };
    kept[field.name] = stored[field.name];
  }
  return { value: kept };
}

/** The values a kind's form posted: each field from its input (numbers as numbers, lists as arrays); empty optional inputs left out. */
export function valueOfFields(form: URLSearchParams, fields: readonly KindFormField[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = (form.get(`f.${field.name}`) ?? "").trim();
    if (field.input === "bool") value[field.name] = raw !== "";
    else if (field.input === "list") {
      const items = form
        .getAll(`f.${field.name}`)
        .flatMap((item) => item.split(","))
        .map((item) => item.trim())
        .filter((item) => item !== "");
      if (items.length > 0 || field.required) value[field.name] = items;
    } else if (raw === "" && !field.required && field.input !== "secret") continue;
    else if (field.input === "number" && /^-?\d+$/.test(raw)) value[field.name] = Number(raw);
    else value[field.name] = field.input === "textarea" || field.name.startsWith("headers_") ? (form.get(`f.${field.name}`) ?? "") : raw;
  }
  return value;
}
