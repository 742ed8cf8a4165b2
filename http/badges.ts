// Badge rendering: pure functions from statuses to SVG, JSON and shields.io documents
// (reference hc/lib/badges.py, templates/badge.svg and views.badge; fact sheet §9).
import type { Status } from "../engine/model.ts";
import { escapeHtml } from "../lib/html.ts";

export const BADGE_STATUSES = ["up", "late", "down"] as const;
export type BadgeStatus = (typeof BADGE_STATUSES)[number];

/** 2-state badges show grace as up; 3-state badges show it as late. */
export type BadgeStates = 2 | 3;

export const BADGE_FORMATS = ["svg", "json", "shields"] as const;
export type BadgeFormat = (typeof BADGE_FORMATS)[number];

/** Label of the badge that covers every check of a project (the reference's MASTER_BADGE_LABEL). */
export const DEFAULT_BADGE_LABEL = "hcd";

/** Colour of the status box of the SVG badge. */
export const BADGE_COLORS = { up: "#4c1", late: "#fe7d37", down: "#e05d44" } as const satisfies Record<BadgeStatus, string>;

/** shields.io colour names of the `shields` format. */
export const SHIELDS_COLORS = { up: "success", late: "important", down: "critical" } as const satisfies Record<BadgeStatus, string>;

/** Widths in px of the characters the reference measures (Verdana 11 px); any other character is 7 px wide. */
export const WIDTHS: Readonly<Record<string, number>> = widthTable({
  3: "ijlI",
  4: "frJ-",
  5: "t",
  6: "cesx1FLP_",
  7: "abdghknopquvyz023456789BEKRSTXYZ",
  8: "ACDHNUV",
  9: "wGOQ",
  10: "mM",
  11: "W",
});
const DEFAULT_WIDTH = 7;

/** What the JSON format reports: the badge status and the counts behind it. */
export type BadgeSummary = { readonly status: BadgeStatus; readonly total: number; readonly grace: number; readonly down: number };

/** Returns the text width in px of `text` by the WIDTHS table (per code point). */
export function textWidth(text: string): number {
  let total = 0;
  for (const char of text) total += WIDTHS[char] ?? DEFAULT_WIDTH;
  return total;
}

/** Returns the JSON badge `{status, total, grace, down}`; new, paused and up count as up. */
export function badgeJson(statuses: readonly (Status | "grace")[], states: BadgeStates): BadgeSummary {
  let grace = 0,
    down = 0;
  for (const status of statuses) {
    if (status === "down") down += 1;
    else if (status === "grace") grace += 1;
  }
  const status: BadgeStatus = down > 0 ? "down" : grace > 0 && states === 3 ? "late" : "up";
  return { status, total: statuses.length, grace, down };
}

/** Returns the shields.io endpoint document for a label and status. */
export function badgeShields(label: string, status: BadgeStatus): { schemaVersion: 1; label: string; message: BadgeStatus; color: string } {
  return { schemaVersion: 1, label, message: status, color: SHIELDS_COLORS[status] };
}

/** Returns the SVG badge: a grey label box and a coloured status box, 20 px high, each 10 px wider than its text. */
export function badgeSvg(label: string, status: BadgeStatus): string {
  const labelWidth = textWidth(label) + 10;
  const statusWidth = textWidth(status) + 10;
  const width = labelWidth + statusWidth;
  const labelX = decimal(labelWidth / 2);
  const statusX = decimal(labelWidth + statusWidth / 2);
  const text = escapeHtml(label);
  return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="20">
  <linearGradient id="smooth" x2="0" y2="100%">
    <stop offset="0" stop-color="#bbb" stop-opacity=".1"/>
    <stop offset="1" stop-opacity=".1"/>
  </linearGradient>

  <mask id="round">
    <rect width="${width}" height="20" rx="3" fill="#fff"/>
  </mask>

  <g mask="url(#round)">
    <rect width="${labelWidth}" height="20" fill="#555"/>
    <rect x="${labelWidth}" width="${statusWidth}" height="20" fill="${BADGE_COLORS[status]}"/>
    <rect width="${width}" height="20" fill="url(#smooth)"/>
  </g>

  <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="11">
    <text x="${labelX}" y="15" fill="#010101" fill-opacity=".3">${text}</text>
    <text x="${labelX}" y="14">${text}</text>
    <text x="${statusX}" y="15" fill="#010101" fill-opacity=".3">${status}</text>
    <text x="${statusX}" y="14">${status}</text>
  </g>
</svg>
`;
}

/** Returns true when `value` names a badge format. */
export function isBadgeFormat(value: string): value is BadgeFormat {
  return (BADGE_FORMATS as readonly string[]).includes(value);
}

/** The reference prints centres as Python floats: 35 → "35.0", 35.5 → "35.5". */
function decimal(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

function widthTable(groups: Readonly<Record<number, string>>): Record<string, number> {
  const table: Record<string, number> = {};
  for (const [width, chars] of Object.entries(groups)) for (const char of chars) table[char] = Number(width);
  return table;
}
