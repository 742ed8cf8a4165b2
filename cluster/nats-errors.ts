// The one place that recognises the NATS client's failures (@nats-io/* v3), each provoked on a real server
// by test/cluster/nats-errors.test.ts.
import {
  AuthorizationError,
  ConnectionError,
  InvalidArgumentError,
  NoRespondersError,
  TimeoutError,
  UserAuthenticationExpiredError,
} from "@nats-io/nats-core";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";

// A request nobody answered: no subscriber at all (the server's 503 status, a RequestError caused by a
// NoRespondersError; for JetStream, a "jetstream is not enabled" error caused by it: a stream electing a
// leader), or no answer in time (a TimeoutError). JetStream's refusals are JetStreamApiErrors carrying the
// server's err_code. A message get or a KV get that finds nothing is no error in v3 (null).

/** The error and every error it was caused by, outermost first. */
function* chain(error: unknown): Generator<unknown> {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) yield e;
}

/** Nobody subscribes to the subject (for JetStream: no stream leader answers now). Never delivered: safe to send again. */
export function noResponders(error: unknown): boolean {
  for (const e of chain(error)) if (e instanceof NoRespondersError) return true;
  return false;
}

/** No answer came within the request's timeout (it may still have been carried out). */
export function timedOut(error: unknown): boolean {
  return error instanceof TimeoutError;
}

/** Unanswered: timed out, or no responders. */
export function unanswered(error: unknown): boolean {
  return timedOut(error) || noResponders(error);
}

/** The JetStream API's err_code of a refusal, or null when the error is no such refusal. */
export function jetStreamCode(error: unknown): number | null {
  return error instanceof JetStreamApiError ? error.code : null;
}

/** A publish refused on its expected last sequence (stream-wide or per subject): another write got there first. */
export function wrongLastSequence(error: unknown): boolean {
  return jetStreamCode(error) === JetStreamApiCodes.StreamWrongLastSequence;
}

/** A stream create refused because another stream takes its subjects (also the loser of two creates of one stream at once: docs/cluster.md, NATS server notes). */
export function subjectsOverlap(error: unknown): boolean {
  return jetStreamCode(error) === 10065; // JSStreamSubjectOverlapErr (the client names no constant for it)
}

export function streamNotFound(error: unknown): boolean {
  return jetStreamCode(error) === JetStreamApiCodes.StreamNotFound;
}

export function consumerNotFound(error: unknown): boolean {
  return jetStreamCode(error) === JetStreamApiCodes.ConsumerNotFound;
}

/** The server refused the connection's credentials (wrong, missing or expired). */
export function credentialsRefused(error: unknown): boolean {
  for (const e of chain(error)) if (e instanceof AuthorizationError || e instanceof UserAuthenticationExpiredError) return true;
  return false;
}

/** The connection requires TLS (tls:// URLs) and the server offers none. */
export function tlsNotOffered(error: unknown): boolean {
  // the client says so in words only: "server does not support 'tls'" when the server's INFO offers no
  // TLS, "'tls' is not available on this server" when the socket did not end up encrypted
  for (const e of chain(error)) {
    if (
      (e instanceof ConnectionError || e instanceof InvalidArgumentError) &&
      /does not support 'tls'|'tls' is not available/.test(e.message)
    )
      return true;
  }
  return false;
}

/** Node's error when the server's certificate failed verification (its code names the failure), or null. */
export function tlsFailure(error: unknown): { code: string; message: string } | null {
  for (const e of chain(error)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /CERT|SSL|TLS|SIGNATURE|ALTNAME|ISSUER/.test(code)) return { code, message: (e as Error).message };
  }
  return null;
}
