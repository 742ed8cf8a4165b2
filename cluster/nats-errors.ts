// How the NATS client (@nats-io/* v3) reports the failures the cluster code tells apart, in one place.
// test/cluster/nats-errors.test.ts provokes each of them on a real nats-server and checks it is recognised.
//
// A request nobody answered: no subscriber at all (the server's 503 status, which the client turns into a
// RequestError caused by a NoRespondersError; for a JetStream request or publish, a "jetstream is not
// enabled" error caused by that RequestError: a stream without a leader while one is elected), or no
// answer in time (a TimeoutError). JetStream's refusals are JetStreamApiErrors carrying the server's
// err_code. A message get that finds nothing is no error in v3 (the client answers null), nor is a KV get.
import { AuthorizationError, ConnectionError, InvalidArgumentError, NoRespondersError, TimeoutError, UserAuthenticationExpiredError } from "@nats-io/nats-core";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";

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

/** A stream create refused because another stream takes its subjects: on 2.9.10 also the loser of two creates of one stream at once. */
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
    if ((e instanceof ConnectionError || e instanceof InvalidArgumentError) && /does not support 'tls'|'tls' is not available/.test(e.message)) return true;
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
