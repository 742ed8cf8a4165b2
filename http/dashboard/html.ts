// HTML built from tagged templates: every interpolated value goes through `escapeHtml` unless it is
// already an `Html` fragment built the same way, so user text (names, tags, bodies, user agents) can
// only ever appear as text.

/** A fragment of markup that is safe to insert as it is: built by `html` or `raw` only. */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

/** What a template accepts: text (escaped), numbers, fragments, lists of them; null/undefined/false render nothing. */
export type Value = string | number | Html | null | undefined | false | readonly Value[];

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const SIGNIFICANT = /[&<>"']/;

/** Returns `text` with the five HTML-significant characters replaced by entities (safe in text and quoted attributes). */
export function escapeHtml(text: string): string {
  // most text has none of them: a test is cheaper than a replace that allocates a copy
  return SIGNIFICANT.test(text) ? text.replace(/[&<>"']/g, (c) => ENTITIES[c]) : text;
}

// Type checks in the order values come most often (text, fragments), and lists joined by one loop without
// an intermediate array: a 1,000-row table renders through here some 20,000 times.
function render(value: Value): string {
  if (typeof value === "string") return escapeHtml(value);
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return "";
  if (typeof value === "number") return String(value);
  let out = "";
  for (const item of value) out += render(item);
  return out;
}

/** The template tag: literal parts are trusted markup, every interpolation is escaped. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Marks constant markup written in this code as safe; never call it with user text. */
export function raw(markup: string): Html {
  return new Html(markup);
}
