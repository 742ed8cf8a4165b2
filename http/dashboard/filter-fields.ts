// The check form's filtering rules (spec §2.1): which HTTP methods count, and the keywords that classify a
// ping's HTTP body or an email's subject and body as start, success or failure, with what an unmatched
// ping becomes. The API's fields and rules, as form inputs.
import type { Check } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

/** The filtering inputs as typed: methods "" or "POST", keywords as text, each flag "1" when ticked, "" when not. */
export type FilterValues = {
  readonly methods: string;
  readonly start_kw: string;
  readonly success_kw: string;
  readonly failure_kw: string;
  readonly filter_http_body: string;
  readonly filter_subject: string;
  readonly filter_body: string;
  readonly filter_default_fail: string;
};

const FLAGS = ["filter_http_body", "filter_subject", "filter_body", "filter_default_fail"] as const;
const KEYWORDS = ["start_kw", "success_kw", "failure_kw"] as const;

export const EMPTY_FILTERS: FilterValues = {
  methods: "",
  start_kw: "",
  success_kw: "",
  failure_kw: "",
  filter_http_body: "",
  filter_subject: "",
  filter_body: "",
  filter_default_fail: "",
};

/** The filtering inputs a form sent (an unticked checkbox sends nothing: off). */
export function filterValuesOf(form: URLSearchParams): FilterValues {
  const flag = (name: string) => ((form.get(name) ?? "") === "" ? "" : "1");
  return {
    methods: form.get("methods") ?? "",
    start_kw: form.get("start_kw") ?? "",
    success_kw: form.get("success_kw") ?? "",
    failure_kw: form.get("failure_kw") ?? "",
    filter_http_body: flag("filter_http_body"),
    filter_subject: flag("filter_subject"),
    filter_body: flag("filter_body"),
    filter_default_fail: flag("filter_default_fail"),
  };
}

export function filterValuesOfCheck(check: Check): FilterValues {
  const flag = (on: boolean) => (on ? "1" : "");
  return {
    methods: check.methods,
    start_kw: check.startKw,
    success_kw: check.successKw,
    failure_kw: check.failureKw,
    filter_http_body: flag(check.filterHttpBody),
    filter_subject: flag(check.filterSubject),
    filter_body: flag(check.filterBody),
    filter_default_fail: flag(check.filterDefaultFail),
  };
}

/** The API request fields the inputs stand for (the API's own rules then judge methods and keyword lengths). */
export function filterBodyOf(values: FilterValues): Record<string, unknown> {
  const body: Record<string, unknown> = { methods: values.methods };
  for (const name of KEYWORDS) body[name] = values[name];
  for (const name of FLAGS) body[name] = values[name] === "1";
  return body;
}

/** The filtering fieldset; `field` renders one labelled text input with its error, `invalid` marks a control invalid. */
export function filterFieldset(
  values: FilterValues,
  opts: {
    readonly field: (id: (typeof KEYWORDS)[number], label: string) => Html;
    readonly invalid: (id: string) => Html | string;
    readonly fieldError: (id: string) => Html | string;
  },
): Html {
  const box = (name: (typeof FLAGS)[number], label: string) =>
    html`<label class="check"><input type="checkbox" id="f-${name}" name="${name}" value="1"${values[name] === "1" ? html` checked` : ""}> ${label}</label>`;
  return html`<fieldset class="filter-rules"><legend>Filtering rules</legend>
<label for="f-methods">Which HTTP requests count as pings</label>
<select id="f-methods" name="methods"${opts.invalid("methods")}>
<option value=""${values.methods === "" ? html` selected` : ""}>HEAD, GET and POST</option>
<option value="POST"${values.methods === "POST" ? html` selected` : ""}>Only POST (HEAD and GET are ignored)</option></select>${opts.fieldError("methods")}
<p class="hint">Keywords are comma-separated and case-sensitive. Failure keywords are looked for first, then success, then start.</p>
${opts.field("success_kw", "Success keywords")}${opts.field("failure_kw", "Failure keywords")}${opts.field("start_kw", "Start keywords")}
<p>Look for the keywords in:</p>
${box("filter_http_body", "the HTTP request body (its first 10 kB)")}${box("filter_subject", "the email subject")}${box("filter_body", "the email body")}
${box("filter_default_fail", "A ping whose keywords match none of these is a failure (unticked: it is ignored)")}
</fieldset>`;
}
