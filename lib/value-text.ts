// A value read from JSON or a form, as text: a string as it is, nothing as "", anything else as its JSON
// (a number as its digits; an object as JSON, never JavaScript's "[object Object]").
export function valueText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value) ?? "";
}
