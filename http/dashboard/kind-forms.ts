// The integrations page's own form for each kind beyond the first five: one input per field of the
// kind's value (its module's form), posted to the same route as the JSON form, which turns the inputs
// back into the value (`valueOfFields`). Secrets are password inputs, never shown back.
import type { ServiceKind } from "../../engine/model.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import type { KindFormField, ServiceKinds } from "../deps.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

function input(kind: ServiceKind, field: KindFormField): Html {
  const id = `k-${kind}-${field.name}`;
  const name = `f.${field.name}`;
  const control = field.input === "bool"
    ? html`<input id="${id}" name="${name}" type="checkbox" checked>`
    : html`<input id="${id}" name="${name}" type="${field.input === "secret" ? "password" : field.input === "number" ? "number" : "text"}"${field.required ? html` required` : ""} autocomplete="off">`;
  return html`<label for="${id}">${field.label}</label>${control}${field.hint === undefined ? "" : html`<span class="hint">${field.hint}</span>`}`;
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
