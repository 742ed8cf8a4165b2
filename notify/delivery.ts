// What a rendered notification asks to be done (an HTTP request or a sequence of them, a command, a JSON-RPC
// line, an email) and what doing it came to: the words render.ts, the kinds and send.ts share.
export const HTTP_METHODS = ["GET", "POST", "PUT"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One HTTP request to make; `body` is sent as UTF-8, null = none. */
export type HttpRequest = {
  readonly kind: "http";
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  /** Sent to an endpoint the operator set (a setting such as TELEGRAM_API_URL), not one a user gave: no private-address rule. */
  readonly operatorEndpoint?: boolean;
};

/** A command run without a shell: its argument vector and the variables added to its environment. */
export type CommandRun = { readonly kind: "command"; readonly argv: readonly string[]; readonly env: Readonly<Record<string, string>> };

/** One JSON-RPC request line to a local daemon's socket (signal-cli), its id to find the reply by. */
export type JsonRpcCall = { readonly kind: "jsonrpc"; readonly socket: string; readonly id: string; readonly line: string };

/** Requests made one after another, each needing success before the next (Pushover's cancel, then its message). */
export type HttpSequence = { readonly kind: "sequence"; readonly requests: readonly HttpRequest[] };

/** One alert email (multipart/alternative); the sender fills in From and Message-ID. */
export type EmailMessage = {
  readonly kind: "email";
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The Message-ID to send it with (a report sent again is the same message); absent: the SMTP library's own. */
  readonly messageId?: string;
  /** Headers besides the usual ones (a report's List-Unsubscribe); absent: none. */
  readonly headers?: Readonly<Record<string, string>>;
};

export type Delivery = HttpRequest | HttpSequence | CommandRun | JsonRpcCall | EmailMessage;

/** Outcome of one send: permanent = retrying cannot help. `status`/`responseBody` come from the last HTTP answer. */
export type SendResult =
  | { readonly ok: true; readonly status: number | null; readonly responseBody?: string }
  | {
      readonly ok: false;
      readonly error: string;
      readonly permanent: boolean;
      readonly status: number | null;
      readonly responseBody: string;
      /** The answer's Retry-After header as sent (seconds or an HTTP date: when to come back); absent = none. */
      readonly retryAfter?: string;
    };
