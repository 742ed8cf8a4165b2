// Text into HTML or XML: the characters Django's template autoescape replaces, so user text (names, tags,
// bodies) is shown as text, never read as markup.

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

/** Returns `text` with & < > " ' replaced by their entities (Django's escape). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}
