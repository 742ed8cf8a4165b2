// Inbound SMTP listener (CONTRACT SMTP_PORT, EMAIL_DOMAIN; fact sheet notify §8): every accepted
// recipient of a message becomes one ping, answered 250 only once every ping is durable. Messages are
// parsed on a worker thread (mail-reader.ts), and a retried message never pings a recipient twice.
import { SMTPServer } from "smtp-server";
import type { SMTPServerDataStream, SMTPServerSession } from "smtp-server";
import type { Clock } from "../host/clock.ts";
import type { Pool } from "../host/pool-api.ts";
import { lookUp } from "../host/pool-api.ts";
import type { Project } from "../engine/model.ts";
import { LIMITS } from "../engine/model.ts";
import { emailUserAgent, parseRecipient } from "./address.ts";
import { startMailReader, UnreadableMail } from "./mail-reader.ts";
import type { MailReader, ReadMessage } from "./mail-reader.ts";
import { RetryLedger } from "./retry-ledger.ts";

/** The part of the pool the listener uses. */
export type MailPool = Pick<Pool, "projectOfCheck" | "projectByPingKey" | "listChecks" | "ping" | "catchUp">;

export type InboundSmtpOptions = {
  readonly port: number; // 0 = any free port
  readonly host: string;
  readonly domain: string; // EMAIL_DOMAIN
  readonly pool: MailPool;
  readonly clock: Clock;
  /** Largest message accepted, in bytes; advertised with SIZE, larger ones are answered 552. */
  readonly maxMessageBytes?: number;
  /** Most clients connected at once; the next hears 421 and is closed (default DEFAULT_MAX_CLIENTS). */
  readonly maxClients?: number;
  /** Parses messages (default: a reader of its own, on a worker thread, closed with the listener). */
  readonly reader?: MailReader;
  /** Hears about faults the client only sees as a 4xx/5xx: socket errors, parse and pool failures. */
  readonly onError?: (error: unknown) => void;
  /** Hears each recipient refused at RCPT TO and each message stored or refused after DATA (metrics). */
  readonly onOutcome?: (result: "accepted" | "refused", reason: string | null) => void;
};

export type InboundSmtp = { readonly port: number; close(): Promise<void> };

export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
// A listener open to a network must not hold sockets without bound: a flood of idle connections would
// otherwise take file descriptors from the pings.
export const DEFAULT_MAX_CLIENTS = 100;
/** Recipients per message: each is a ping, so one small message must not become thousands (Postfix allows 1,000). */
export const MAX_RECIPIENTS = 100;
/** (message, check) pairs of partly delivered messages remembered for their retries (about 100 bytes each). */
export const RETRY_LEDGER_ENTRIES = 10_000;
const IDLE_TIMEOUT_MS = 60_000; // a client silent this long is disconnected
const CLOSE_GRACE_MS = 5_000; // connected clients get this long to finish before they hear 421

/** A check a recipient address resolved to. */
type Resolved = { readonly ok: true; readonly uuid: string; readonly project: Project };
type Refused = { readonly ok: false; readonly code: number; readonly message: string };

/** Starts listening; resolves with the port actually bound once connections are accepted. */
export async function startInboundSmtp(options: InboundSmtpOptions): Promise<InboundSmtp> {
  const { pool, clock, domain } = options;
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  const onError = options.onError ?? (() => {});
  const onOutcome = options.onOutcome ?? (() => {});
  const inFlight = new Set<Promise<void>>(); // DATA handlers close() waits for
  const reader = options.reader ?? startMailReader();
  const ledger = new RetryLedger(RETRY_LEDGER_ENTRIES);

  /**
   * Returns null when every recipient's ping is stored, else the reply that refuses the message; throws
   * (→ 451) when a ping could not be stored: the recipients already pinged are remembered so that the
   * sender's retry of the whole message pings only the others.
   */
  async function accept(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<Error | null> {
    const raw = await readStream(stream, maxMessageBytes);
    if (raw === null) return reply(552, `5.3.4 Message exceeds fixed maximum message size ${maxMessageBytes}`);
    const at = clock.now(); // read once: every recipient's ping gets the same instant
    let message: ReadMessage;
    try {
      message = await reader.read(raw);
    } catch (error) {
      onError(error);
      if (error instanceof UnreadableMail) return reply(550, "5.6.0 Message could not be parsed"); // the same bytes would fail again
      throw error;
    }
    const mailFrom = session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address;
    const targets: Resolved[] = [];
    for (const recipient of session.envelope.rcptTo) {
      const target = await resolveRecipient(pool, recipient.address, domain);
      if (!target.ok) continue; // deleted or renamed since RCPT: dropped, as the reference drops unknown checks
      if (ledger.pinged(message.digest, target.uuid)) continue; // by an earlier try of this same message
      targets.push(target);
    }
    const outcomes = await Promise.allSettled(
      targets.map((target) =>
        pool.ping(target.project.id, {
          target: { uuid: target.uuid },
          signal: "success",
          exitStatus: null,
          rid: null,
          method: "",
          scheme: "email", // as the reference records mail (fact sheet notify §8)
          remoteAddr: session.remoteAddress,
          ua: emailUserAgent(mailFrom, LIMITS.uaMaxChars),
          body: cutBody(raw, target.project.pingBodyLimit),
          email: message.content,
          at,
        }),
      ),
    ); // a failed outcome is the same race as above; a rejection is a 451
    const failure = outcomes.find((outcome) => outcome.status === "rejected");
    if (failure === undefined) {
      ledger.forget(message.digest);
      return null;
    }
    ledger.remember(
      message.digest,
      targets.filter((_target, i) => outcomes[i].status === "fulfilled").map((target) => target.uuid),
    );
    throw failure.reason;
  }

  const server = new SMTPServer({
    name: domain,
    banner: "hcd ping listener",
    logger: false,
    disableReverseLookup: true, // the peer IP is what is recorded; a DNS round trip per connection buys nothing
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"], // plain text on a trusted network, as the reference's listener
    size: maxMessageBytes,
    rejectOversized: true, // 552 whatever onData answers
    closeTimeout: CLOSE_GRACE_MS,
    maxClients: options.maxClients ?? DEFAULT_MAX_CLIENTS,
    socketTimeout: IDLE_TIMEOUT_MS,
    maxRecipients: MAX_RECIPIENTS, // the next distinct one hears 452 (a repeated address counts once)
    onRcptTo(address, _session, callback) {
      resolveRecipient(pool, address.address, domain).then(
        (resolved) => {
          if (!resolved.ok) onOutcome("refused", `${resolved.code} ${resolved.message}`);
          callback(resolved.ok ? null : reply(resolved.code, resolved.message));
        },
        (error: unknown) => {
          onError(error);
          callback(reply(451, "4.3.0 Temporary failure, try again later"));
        },
      );
    },
    onData(stream, session, callback) {
      const done = accept(stream, session).then(
        (refusal) => {
          onOutcome(refusal === null ? "accepted" : "refused", refusal?.message ?? null);
          callback(refusal, "OK: ping recorded");
        },
        (error: unknown) => {
          onError(error);
          stream.resume(); // the reply is sent once the rest of the message has been read
          callback(reply(451, "4.3.0 Temporary failure, try again later"));
        },
      );
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    },
  });
  server.on("error", onError); // client socket faults: without a listener they would crash the process

  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const bound = server.server.address();
  const port = typeof bound === "object" && bound !== null ? bound.port : options.port;
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(inFlight);
      if (options.reader === undefined) await reader.close(); // a reader given is its giver's to close
    },
  };
}

/** Returns the check a recipient address names, or the 5xx reply that refuses it (fact sheet §8, Project). */
async function resolveRecipient(pool: MailPool, address: string, domain: string): Promise<Resolved | Refused> {
  const recipient = parseRecipient(address, domain);
  switch (recipient.kind) {
    case "wrong_domain":
      return { ok: false, code: 550, message: "5.1.1 Recipient rejected" };
    case "invalid_mailbox":
      return { ok: false, code: 550, message: "5.1.1 Invalid mailbox" };
    case "uuid": {
      const project = await lookUp(pool, () => pool.projectOfCheck(recipient.uuid));
      if (project === null) return { ok: false, code: 550, message: "5.1.1 Unknown check" };
      return { ok: true, uuid: recipient.uuid, project };
    }
    case "slug": {
      const project = await lookUp(pool, () => pool.projectByPingKey(recipient.pingKey));
      if (project === null) return { ok: false, code: 550, message: "5.1.1 Unknown check" };
      const checks = await pool.listChecks(project.id, { slug: recipient.slug, tags: [] });
      if (checks.length === 0) return { ok: false, code: 550, message: "5.1.1 Unknown check" };
      // Project: a slug matching several checks is refused here (the reference drops the ping after DATA)
      if (checks.length > 1) return { ok: false, code: 550, message: "5.1.4 Ambiguous slug: several checks match" };
      return { ok: true, uuid: checks[0].uuid, project };
    }
  }
}

/** Returns the message bytes, or null when they exceed `maxBytes` (the rest is read and dropped). */
async function readStream(stream: SMTPServerDataStream, maxBytes: number): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size <= maxBytes) chunks.push(bytes);
  }
  if (size > maxBytes || stream.sizeExceeded) return null;
  const message = new Uint8Array(size); // a plain Uint8Array: its slice() copies, a Buffer's would be a view
  let offset = 0;
  for (const chunk of chunks) {
    message.set(chunk, offset);
    offset += chunk.length;
  }
  return message;
}

/** Returns a copy of the first `limitBytes` bytes (a view would ship the whole message to the shard), or null. */
function cutBody(raw: Uint8Array, limitBytes: number): Uint8Array | null {
  return limitBytes > 0 && raw.length > 0 ? raw.slice(0, limitBytes) : null;
}

/** Returns an error smtp-server sends as the SMTP reply `code message`. */
function reply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}
