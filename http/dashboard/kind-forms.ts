// The integrations page's own form for each kind beyond the first five: one input per field of the
// kind's value (its module's form), posted to the same route as the JSON form, which turns the inputs
// back into the value (`valueOfFields`). Secrets are password inputs, never shown back. The same inputs,
// prefilled, edit an existing integration of the kind.
import type { ServiceFields, ServiceKind } from "../../engine/model.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import type { KindFormField, ServiceKinds } from "../deps.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

/**
 * One input of a kind's form, empty (adding) or holding `current`, the stored field (editing). A secret
 * is never shown back: editing leaves its input empty, and empty keeps the stored one (keptSecrets).
 */
function input(kind: ServiceKind, field: KindFormField, current?: ServiceFields): Html {
  const id = `k-${kind}-${field.name}`;
  const name = `f.${field.name}`;
  const editing = current !== undefined;
  const stored = current?.[field.name] ?? null;
  const secret = field.input === "secret";
  const value = !editing || secret || stored === null ? "" : String(stored);
  const required = field.required && !(editing && secret);
  const control = field.input === "bool"
    ? html`<input id="${id}" name="${name}" type="checkbox"${!editing || (stored !== null && Number(stored) !== 0 && stored !== "false") ? html` checked` : ""}>`
    : html`<input id="${id}" name="${name}" type="${secret ? "password" : field.input === "number" ? "number" : "text"}" value="${value}"${required ? html` required` : ""} autocomplete="off">`;
  const hint = editing && secret ? "leave empty to keep" : field.hint;
  return html`<label for="${id}">${field.label}</label>${control}${hint === undefined ? "" : html`<span class="hint">${hint}</span>`}`;
}

/** The form of `kind` editing a channel of it: its fields prefilled from `current`, secrets empty. */
export function kindEditForm(action: string, csrf: string, kinds: Pick<ServiceKinds, "help" | "form">, kind: ServiceKind, name: string, current: ServiceFields): Html {
  return html`<p class="hint">${kinds.help(kind)}</p>
<form method="post" action="${action}" class="check-form"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="form" value="fields">
<label for="k-${kind}-name">Label</label><input id="k-${kind}-name" name="name" maxlength="100" value="${name}">
${kinds.form(kind).map((field) => input(kind, field, current))}
<button type="submit">Save</button></form>`;
}

/**
 * Puts the stored secret back in each secret field the edit form left empty (the form never shows it),
 * unless a target field (where the message and its secrets go: a server URL, a site) changed: a stored
 * secret never follows a new destination, so then each secret must be typed again (`problem` names it).
 */
export function keptSecrets(value: Record<string, unknown>, fields: readonly KindFormField[], stored: ServiceFields): { value: Record<string, unknown> } | { problem: string } {
  const kept = { ...value };
  const moved = fields.find((field) => field.target === true && String(value[field.name] ?? "") !== String(stored[field.name] ?? ""));
  for (const field of fields) {
    if (field.input !== "secret" || (kept[field.name] ?? "") !== "" || stored[field.name] === undefined) continue;
    if (moved !== undefined) return { problem: `value.${field.name}: type the ${field.label} again: the ${moved.label} changed, and a stored secret is never sent to a new destination` };
    kept[field.name] = stored[field.name];
  }
  return { value: kept };
}

/** One collapsed form per kind of notify/kinds/, each adding an integration of its kind. */
export function kindForms(action: string, csrf: string, kinds: Pick<ServiceKinds, "help" | "form">): Html {
  return html`${SERVICE_KINDS.map((kind) => html`<details class="kind-form"><summary>${kind}</summary>
<p class="hint">${kinds.help(kind)}</p>
<form method="post" action="${action}" class="check-form"><input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="kind" value="${kind}"><input type="hidden" name="form" value="fields">
<label for="k-${kind}-name">Label</label><input id="k-${kind}-name" name="name" maxlength="100">
${kinds.form(kind).map((field) => input(kind, field))}
<button type="submit">Add ${kind} integration</button></form></details>`)}`;
}

/** The value a kind's form posted: each field from its input (numbers as numbers, lists as arrays); empty optional inputs left out. */
export function valueOfFields(form: URLSearchParams, fields: readonly KindFormField[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = (form.get(`f.${field.name}`) ?? "").trim();
    if (field.input === "bool") value[field.name] = raw !== "";
    else if (raw === "" && !field.required) continue;
    else if (field.input === "number" && /^-?\d+$/.test(raw)) value[field.name] = Number(raw);
    else if (field.input === "list") value[field.name] = raw.split(",").map((item) => item.trim()).filter((item) => item !== "");
    else value[field.name] = raw;
  }
  return value;
}
