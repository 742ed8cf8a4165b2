// The only place failures become HTTP statuses, and the {"error": "..."} body of every 4xx/5xx.
import { HTTPError, HTTPResponse } from "h3";
import { jsonResponse } from "./response.ts";
import type { Failure, Outcome } from "../engine/outcome.ts";
import { assertNever } from "../engine/model.ts";
import { isServiceUnavailable } from "../host/unavailable.ts";

const STATUS = {
  unauthorized: 401,
  forbidden: 403,
  check_limit: 403,
  not_found: 404,
  not_paused: 409,
  not_down: 409,
  ambiguous_slug: 409,
  invalid: 400,
} satisfies Record<Failure["code"], number>; // a new code without a status won't compile

/** Returns the HTTP status of a failure. */
export function statusOf(failure: Failure): number {
  return STATUS[failure.code];
}

/** Returns the human-readable reason shown in the error body. */
export function reasonOf(failure: Failure): string {
  switch (failure.code) {
    case "unauthorized":
      return "wrong api key";
    case "forbidden":
      return "forbidden";
    case "not_found":
      return failure.what ? `${failure.what} not found` : "not found";
    case "not_paused":
      return "check is not paused";
    case "not_down":
      return "check is not down";
    case "check_limit":
      return "check limit reached";
    case "ambiguous_slug":
      return "ambiguous slug";
    // the reference's wording: "json validation error: <field> <reason>"
    case "invalid":
      return failure.field === "" ? failure.reason : `json validation error: ${failure.field} ${failure.reason}`;
    default:
      return assertNever(failure);
  }
}

/** Ping failures as statuses and texts: ping answers are text like the reference's, not the API's JSON. */
const PING_FAILURES = {
  not_found: [404, "not found"],
  ambiguous_slug: [409, "ambiguous slug"],
  invalid: [400, "invalid url format"],
  check_limit: [404, "not found"], // reference: auto-provisioning past twice the limit answers 404
  // cannot happen on the ping path; answered as an unknown check
  unauthorized: [404, "not found"],
  forbidden: [404, "not found"],
  not_paused: [404, "not found"],
  not_down: [404, "not found"],
} as const satisfies Record<Failure["code"], readonly [number, string]>;

/** Returns the status and text a ping answers for a failure. */
export function pingFailureOf(failure: Failure): readonly [number, string] {
  return PING_FAILURES[failure.code];
}

/** Returns an HTTPError for a failure (thrown by handlers; rendered by `renderError`). */
export function failureError(failure: Failure): HTTPError {
  return new HTTPError({ status: statusOf(failure), message: reasonOf(failure) });
}

/** Returns an HTTPError with this status, message and extra response headers. */
export function httpError(status: number, message: string, headers?: HeadersInit): HTTPError {
  return new HTTPError({ status, message, headers });
}

/** A failure as a sentence for a person on a page: an invalid field's reason alone, without the API's "json validation error: <field>" prefix. */
export function sentenceOf(failure: Failure): string {
  // a reason that does not name its field gets it in front ("slug" + "is already taken")
  const text =
    failure.code !== "invalid"
      ? reasonOf(failure)
      : failure.reason.includes(failure.field)
        ? failure.reason
        : `${failure.field} ${failure.reason}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? "" : "."}`;
}

/** Why the only owner of a project can't be demoted or removed (by anyone: the admin gives another owner first). */
export function lastOwnerError(email: string): string {
  return `${email} is the only owner of this project: make another member owner first`;
}

/** Returns the value of a successful outcome; throws the failure's HTTPError otherwise. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw failureError(outcome.failure);
}

/** Reports an unexpected error (a bug or an I/O fault); the client only sees "internal error". */
export type ErrorReporter = (error: unknown) => void;

/** Returns the JSON error response for anything thrown; unexpected errors become 500 "internal error" and are reported. */
export function renderError(error: unknown, opts: { report: ErrorReporter; headers?: HeadersInit }): HTTPResponse {
  const headers = new Headers(opts.headers);
  if (isServiceUnavailable(causeOf(error))) return jsonResponse({ error: "service unavailable, try again" }, 503, headers);
  if (HTTPError.isError(error) && !error.unhandled) {
    error.headers?.forEach((value, name) => headers.set(name, value));
    return jsonResponse({ error: error.message }, error.status, headers);
  }
  opts.report(HTTPError.isError(error) && error.cause instanceof Error ? error.cause : error);
  return jsonResponse({ error: "internal error" }, 500, headers);
}

/** Returns a plain-text error response (for the ping and badge paths, which are not JSON APIs). */
export function renderTextError(error: unknown, opts: { report: ErrorReporter }): HTTPResponse {
  const headers = { "content-type": "text/plain; charset=utf-8" };
  if (isServiceUnavailable(causeOf(error))) return new HTTPResponse("service unavailable", { status: 503, headers });
  if (HTTPError.isError(error) && !error.unhandled) return new HTTPResponse(error.message, { status: error.status, headers });
  opts.report(HTTPError.isError(error) && error.cause instanceof Error ? error.cause : error);
  return new HTTPResponse("internal error", { status: 500, headers });
}

/** What was thrown inside the handler (h3 wraps it in an HTTPError as its cause). */
function causeOf(error: unknown): unknown {
  return HTTPError.isError(error) && error.unhandled && error.cause !== undefined ? error.cause : error;
}
