// The time-zone picker of the check form and of a maintenance window: the IANA names this Node.js knows (Intl.supportedValuesOf), UTC
// first. The form offers exactly these and the server takes exactly these, besides the zone a check
// already has (the API takes more, such as Etc/GMT+5, and stores Europe/Kyiv where Intl says Europe/Kiev).
import type { Failure } from "../../engine/outcome.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

export const TIME_ZONES: readonly string[] = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((zone) => zone !== "UTC")];
const KNOWN: ReadonlySet<string> = new Set(TIME_ZONES);

/** What a refused zone must be, in the forms' words. */
export const TIME_ZONE_RULE = "Time zone must be an IANA time zone name, like UTC, Europe/Riga or America/New_York.";

/** Returns the form's field error when `tz` is neither a name of the picker nor the check's stored zone. */
export function timeZoneProblem(tz: string, storedTz: string | null): Failure | null {
  if (KNOWN.has(tz) || tz === storedTz) return null;
  return { code: "invalid", field: "tz", reason: "is not a valid timezone" };
}

/**
 * The picker: every name, the chosen one selected (added first when it is a stored legacy name or a refused
 * one, so the form shows what it got). Its id is `${idPrefix}tz` ("f-" unless said).
 */
export function timeZoneSelect(opts: { readonly chosen: string; readonly invalid: Html | string; readonly idPrefix?: string }): Html {
  const names = KNOWN.has(opts.chosen) ? TIME_ZONES : [opts.chosen, ...TIME_ZONES];
  return html`<select id="${opts.idPrefix ?? "f-"}tz" name="tz"${opts.invalid}>${names.map((zone) => html`<option${zone === opts.chosen ? html` selected` : ""}>${zone}</option>`)}</select>`;
}
