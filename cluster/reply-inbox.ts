// The requests a ping pays for (a log append's PubAck, a history chain's, a batch forwarded to the owner
// node) answered on one subscription per connection and timed out by one sweep, failing as the client's do.
import { JetStreamApiError } from "@nats-io/jetstream";
import type { ApiError, PubAck } from "@nats-io/jetstream";
import { ClosedConnectionError, createInbox, NoRespondersError, TimeoutError } from "@nats-io/nats-core";
import type { Msg, MsgHdrs, NatsConnection } from "@nats-io/nats-core";

/** How often unanswered requests are looked at: a request times out up to this much after its timeout. */
const SWEEP_MS = 100;

type Waiting = {
  readonly subject: string;
  readonly deadline: number;
  readonly resolve: (message: Msg) => void;
  readonly reject: (error: unknown) => void;
};

/**
 * The client's request() spends a timer, a subscription entry and an Error (made to cancel the request
 * even once it is answered) on each request; this spends a map entry. Failures are the client's own
 * (nats-errors.ts): a TimeoutError, a NoRespondersError, a JetStreamApiError for a refused publish.
 */
export class ReplyInbox {
  readonly #connection: NatsConnection;
  readonly #prefix: string;
  readonly #waiting = new Map<string, Waiting>();
  #next = 0;
  #sweeper: ReturnType<typeof setInterval> | null = null;
  #closed = false;

  constructor(connection: NatsConnection) {
    this.#connection = connection;
    this.#prefix = `${createInbox()}.`;
    connection.subscribe(`${this.#prefix}*`, {
      callback: (error, message) => {
        if (error === null) this.#answer(message);
      },
    });
    void connection.closed().then(() => {
      this.#closed = true;
      this.#failAll(new ClosedConnectionError());
    });
  }

  /** Sends `data` to `subject` and resolves with the answer; rejects on no answer within `timeoutMs` or no responders. */
  request(subject: string, data: Uint8Array, options: { readonly timeoutMs: number; readonly headers?: MsgHdrs }): Promise<Msg> {
    if (this.#closed) return Promise.reject(new ClosedConnectionError());
    const token = (this.#next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      this.#waiting.set(token, { subject, deadline: Date.now() + options.timeoutMs, resolve, reject });
      try {
        this.#connection.publish(subject, data, { reply: this.#prefix + token, headers: options.headers });
      } catch (error) {
        this.#waiting.delete(token);
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (this.#sweeper === null) {
        this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
        this.#sweeper.unref();
      }
    });
  }

  /** Publishes to a JetStream stream's subject and resolves with its PubAck; a refusal rejects as the client's publish does. */
  async publish(subject: string, data: Uint8Array, options: { readonly timeoutMs: number; readonly headers?: MsgHdrs }): Promise<PubAck> {
    return pubAckOf(await this.request(subject, data, options));
  }

  #answer(message: Msg): void {
    const token = message.subject.slice(this.#prefix.length);
    const waiting = this.#waiting.get(token);
    if (waiting === undefined) return; // answered after its request timed out
    this.#waiting.delete(token);
    if (message.data.length === 0 && message.headers?.code === 503) waiting.reject(new NoRespondersError(waiting.subject));
    else waiting.resolve(message);
  }

  #sweep(): void {
    const now = Date.now();
    for (const [token, waiting] of this.#waiting) {
      if (waiting.deadline > now) continue;
      this.#waiting.delete(token);
      waiting.reject(new TimeoutError());
    }
    if (this.#waiting.size === 0 && this.#sweeper !== null) {
      clearInterval(this.#sweeper);
      this.#sweeper = null;
    }
  }

  #failAll(error: Error): void {
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }
}

/** A JetStream publish's answer: its PubAck (the client's type), or the refusal it carries thrown as a JetStreamApiError. */
export function pubAckOf(message: Msg): PubAck {
  const answer = JSON.parse(new TextDecoder().decode(message.data)) as {
    stream?: unknown;
    domain?: unknown;
    seq?: unknown;
    duplicate?: unknown;
    error?: ApiError;
  };
  if (answer.error !== undefined) throw new JetStreamApiError(answer.error);
  if (typeof answer.stream !== "string" || answer.stream === "" || typeof answer.seq !== "number") throw new Error("not a PubAck");
  const ack: PubAck = { stream: answer.stream, seq: answer.seq, duplicate: answer.duplicate === true };
  if (typeof answer.domain === "string") ack.domain = answer.domain;
  return ack;
}

const inboxes = new WeakMap<NatsConnection, ReplyInbox>();

/** The connection's one ReplyInbox. */
export function replyInboxOf(connection: NatsConnection): ReplyInbox {
  let inbox = inboxes.get(connection);
  if (inbox === undefined) {
    inbox = new ReplyInbox(connection);
    inboxes.set(connection, inbox);
  }
  return inbox;
}
