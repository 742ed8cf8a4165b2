// An instant on a page: written in UTC by the server, shown in the viewer's own time zone by the page's
// script (computed in the browser, which knows the zone), with the UTC time kept on hover.
import type { Millis } from "../../engine/model.ts";
import { exactText } from "./format.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

/** `<time>` of `at`: its ISO instant for the script, the UTC text as its content and its title. */
export function timeHtml(at: Millis): Html {
  const utc = exactText(at);
  return html`<time datetime="${new Date(at).toISOString()}" title="${utc}">${utc}</time>`;
}
