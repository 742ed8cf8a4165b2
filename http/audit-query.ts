// The audit log's paging query (GET /admin/v1/projects/<id>/audit and the dashboard's page): `limit`
// (1-500, default 50) and `before` (the `next` cursor of the previous page) → a page request, or a 400.
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 500;

/** Returns the page a query asks for, or the field it gets wrong. */
export function auditQueryOf(params: URLSearchParams): Outcome<{ limit: number; before: number | null }> {
  const limit = params.get("limit");
  const before = params.get("before");
  const limitValue = limit === null ? AUDIT_PAGE_DEFAULT : wholeNumber(limit);
  if (limitValue === null || limitValue < 1 || limitValue > AUDIT_PAGE_MAX) {
    return invalid("", `limit must be a whole number from 1 to ${AUDIT_PAGE_MAX}`);
  }
  const beforeValue = before === null ? null : wholeNumber(before);
  if (before !== null && (beforeValue === null || beforeValue < 1)) {
    return invalid("", "before must be the positive whole number a previous page gave as next");
  }
  return ok({ limit: limitValue, before: beforeValue });
}

function wholeNumber(text: string): number | null {
  return /^[0-9]{1,15}$/.test(text) ? Number(text) : null;
}
