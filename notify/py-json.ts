// JSON text as Python's json.dumps writes it by default, which the reference sends in every payload
// and substitutes for $JSON / $NAME_JSON (fact sheet §3): ", " and ": " separators, non-ASCII as \uXXXX.

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Returns `value` serialised like Python's `json.dumps(value)`. */
export function pyJson(value: JsonValue): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (typeof value === "string") return pyJsonString(value);
  if (isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([key, item]) => `${pyJsonString(key)}: ${pyJson(item)}`)
    .join(", ")}}`;
}

function pyJsonString(text: string): string {
  // JSON.stringify already escapes quotes, backslashes, controls and lone surrogates; Python also escapes non-ASCII
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (c) =>
    c === "\u007f" ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function isArray(value: JsonValue): value is readonly JsonValue[] {
  return Array.isArray(value);
}
