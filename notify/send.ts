// The only notify code that touches sockets and timers: one HTTP request (redirects, private-address
// guard, deadline) or one email over SMTP; a command (command.ts) or a JSON-RPC call (json-rpc.ts) through them. Results are values; nothing here throws for a failed send.
import { lookup as dnsLookup } from "node:dns";
import type { LookupAddress, LookupOptions } from "node:dns";
import * as http from "node:http";
import * as https from "node:https";
import { isIP } from "node:net";
import { isPrivateAddress } from "./private-ip.ts";
import type { CommandRun, EmailMessage, HttpMethod, HttpRequest, HttpSequence, JsonRpcCall, SendResult } from "./delivery.ts";
import { runCommand } from "./command.ts";
import { sendJsonRpc } from "./json-rpc.ts";

export type HttpOptions = {
  readonly timeoutMs: number; // the whole exchange, redirects included
  readonly maxResponseBytes: number;
  readonly allowPrivateIps: boolean;
  readonly userAgent?: string;
  /** Which resolved addresses to refuse; default: private ones unless allowPrivateIps. Tests narrow it. */
  readonly refuseAddress?: (address: string) => boolean;
};

const SUCCESS = new Set([200, 201, 202, 204]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;
const PRIVATE_REFUSED = "Connections to private IP addresses are not allowed";

/** An error text with its permanence, carried through the hop code as a rejection. */
class SendFailure extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent = false) {
    super(message);
    this.permanent = permanent;
  }
}

type Answer = { status: number; location: string | null; retryAfter: string | null; body: Buffer };

/**
 * Sends one request and follows up to 3 redirects, refusing any hop whose address is private unless
 * allowed (fact sheet §3). Returns ok for 200/201/202/204, else the reference's error text.
 */
export async function sendHttp(request: HttpRequest, given: HttpOptions): Promise<SendResult> {
  // an endpoint the operator set (a proxy, a local receiver) is not a user's URL: no private-address rule
  const opts: HttpOptions = request.operatorEndpoint === true ? { ...given, allowPrivateIps: true, refuseAddress: () => false } : given;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return failed(new SendFailure("Invalid URL", true), null, "");
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs);
  let method: HttpMethod = request.method;
  let body = request.body === null ? null : Buffer.from(request.body, "utf8");
  let headers: Record<string, string> = { ...request.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === "user-agent")) {
    headers["User-Agent"] = opts.userAgent ?? "healthchecks.io";
  }
  try {
    for (let redirects = 0; ; redirects++) {
      const answer = await exchange({ url, method, headers, body, opts, signal: abort.signal });
      if (REDIRECTS.has(answer.status) && answer.location !== null) {
        if (redirects >= MAX_REDIRECTS) throw new SendFailure("Too many redirects");
        const next = new URL(answer.location, url);
        // like curl: 303 always, and 301/302 after a POST, continue as GET without a body
        if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === "POST")) {
          method = "GET";
          body = null;
          headers = withoutHeaders(headers, ["content-type", "content-length"]);
        }
        if (next.host !== url.host) headers = withoutHeaders(headers, ["authorization", "cookie"]);
        url = next;
        continue;
      }
      const text = answer.body.toString("utf8");
      if (SUCCESS.has(answer.status)) return { ok: true, status: answer.status, responseBody: answer.body.toString("utf8") };
      return {
        ok: false,
        error: `Received status code ${answer.status}`,
        permanent: false,
        status: answer.status,
        responseBody: text,
        ...(answer.retryAfter === null ? {} : { retryAfter: answer.retryAfter }),
      };
    }
  } catch (error) {
    return failed(abort.signal.aborted ? new SendFailure("Connection timed out") : error, null, "");
  } finally {
    clearTimeout(timer);
  }
}

/** Sends each request in turn, stopping at the first failure, whose result it returns. */
export async function sendHttpSequence(sequence: HttpSequence, opts: HttpOptions): Promise<SendResult> {
  let result: SendResult = { ok: true, status: null };
  for (const request of sequence.requests) {
    result = await sendHttp(request, opts);
    if (!result.ok) return result;
  }
  return result;
}

/** Sends a delivery other than an email: one request, a sequence, or a command (run within the same deadline). */
export function sendRequests(delivery: HttpRequest | HttpSequence | CommandRun | JsonRpcCall, opts: HttpOptions): Promise<SendResult> {
  if (delivery.kind === "jsonrpc") return sendJsonRpc(delivery, opts.timeoutMs);
  if (delivery.kind === "command") return runCommand(delivery, opts.timeoutMs);
  return delivery.kind === "sequence" ? sendHttpSequence(delivery, opts) : sendHttp(delivery, opts);
}

/** Reads Retry-After (seconds, or an HTTP date measured from `nowMs`) as milliseconds; null when absent or unreadable. */
export function retryAfterOf(header: string | null, nowMs: number): number | null {
  if (header === null || header.trim() === "") return null;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

function failed(error: unknown, status: number | null, responseBody: string): SendResult {
  const failure = error instanceof SendFailure ? error : new SendFailure(describeSocketError(error));
  return { ok: false, error: failure.message, permanent: failure.permanent, status, responseBody };
}

function withoutHeaders(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));
}

/** Maps a Node socket/DNS/TLS error to the reference's wording (hc/lib/curl.py). */
function describeSocketError(error: unknown): string {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  if (code === PRIVATE_CODE) return PRIVATE_REFUSED;
  if (["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NODATA", "EAI_NONAME"].includes(code)) return "Could not resolve host";
  if (code === "ETIMEDOUT" || code === "ABORT_ERR") return "Connection timed out";
  if (
    [
      "ECONNREFUSED",
      "ECONNRESET",
      "EHOSTUNREACH",
      "ENETUNREACH",
      "EPIPE",
      "ECONNABORTED",
      "EADDRNOTAVAIL",
      "ERR_SOCKET_CLOSED",
      "UND_ERR_SOCKET",
    ].includes(code)
  )
    return "Connection failed";
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|EPROTO|ERR_OSSL)/.test(code)) return "TLS handshake failed";
  return `HTTP request failed, code: ${code || "unknown"}`;
}

const PRIVATE_CODE = "HCD_PRIVATE_ADDRESS";

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function refusal(opts: HttpOptions): (address: string) => boolean {
  return opts.refuseAddress ?? (opts.allowPrivateIps ? () => false : isPrivateAddress);
}

/** A dns.lookup for http.request that drops refused addresses, so every socket, redirects too, is checked. */
function guardedLookup(refused: (address: string) => boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) return callback(err, []);
      const usable = addresses.filter((a) => !refused(a.address));
      if (usable.length === 0) return callback(Object.assign(new Error(PRIVATE_REFUSED), { code: PRIVATE_CODE }), []);
      if (options.all === true) return callback(null, usable);
      return callback(null, usable[0].address, usable[0].family);
    });
  };
}

type Exchange = {
  url: URL;
  method: HttpMethod;
  headers: Record<string, string>;
  body: Buffer | null;
  opts: HttpOptions;
  signal: AbortSignal;
};

/** One request/response on a fresh connection; rejects with the socket error or SendFailure. */
function exchange({ url, method, headers, body, opts, signal }: Exchange): Promise<Answer> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      reject(new SendFailure(`Unsupported URL scheme: ${url.protocol.replace(/:$/, "")}`, true));
      return;
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) !== 0 && refusal(opts)(host)) {
      reject(new SendFailure(PRIVATE_REFUSED)); // literal addresses never reach the lookup
      return;
    }
    const transport = url.protocol === "https:" ? https : http;
    const requestHeaders: Record<string, string> = { ...headers };
    if (body !== null) requestHeaders["Content-Length"] = String(body.length);
    const req = transport.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers: requestHeaders,
        lookup: guardedLookup(refusal(opts)),
        agent: false,
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const retryAfter = res.headers["retry-after"];
        const finish = () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location ?? null,
            retryAfter: typeof retryAfter === "string" ? retryAfter : null,
            body: Buffer.concat(chunks).subarray(0, opts.maxResponseBytes),
          });
        res.on("data", (chunk: Buffer) => {
          if (size >= opts.maxResponseBytes) return;
          chunks.push(chunk);
          size += chunk.length;
          if (size >= opts.maxResponseBytes) {
            // enough to judge the answer: stop reading
            finish();
            res.destroy();
          }
        });
        res.on("end", finish);
        res.on("error", reject);
        res.on("close", () => {
          if (!res.complete && size < opts.maxResponseBytes) reject(new SendFailure("Connection failed"));
        });
      },
    );
    req.on("error", reject);
    req.end(body ?? undefined);
  });
}

export type EmailOptions = {
  readonly smtpUrl: string | undefined; // e.g. smtp://user:pass@host:587; unset = email not configured
  readonly from: string;
  readonly timeoutMs: number;
};

/** Sends one alert email through SMTP_URL; returns the server's refusal or the connection error as a value. */
export async function sendEmail(message: EmailMessage, opts: EmailOptions): Promise<SendResult> {
  if (opts.smtpUrl === undefined || opts.smtpUrl === "") {
    return { ok: false, error: "Email is not configured: SMTP_URL is not set", permanent: false, status: null, responseBody: "" };
  }
  const { default: nodemailer } = await import("nodemailer"); // loaded on the first mail, not by every shard at start
  const transporter = nodemailer.createTransport({
    url: opts.smtpUrl,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  });
  try {
    await transporter.sendMail({
      from: opts.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
      ...(message.headers === undefined ? {} : { headers: { ...message.headers } }),
    });
    return { ok: true, status: null };
  } catch (error) {
    return { ok: false, error: describeSmtpError(error), permanent: false, status: null, responseBody: "" };
  } finally {
    transporter.close();
  }
}

function describeSmtpError(error: unknown): string {
  if (typeof error !== "object" || error === null) return "Email sending failed";
  const code = "code" in error ? String(error.code) : "";
  const response = "response" in error && typeof error.response === "string" ? error.response : "";
  if (code === "ETIMEDOUT") return "SMTP connection timed out";
  if (code === "EDNS") return "Could not resolve SMTP host";
  if (code === "ECONNECTION" || code === "ESOCKET") return `SMTP connection failed: ${"message" in error ? String(error.message) : code}`;
  if (response !== "") return `SMTP error: ${response}`;
  return `Email sending failed: ${"message" in error ? String(error.message) : code}`;
}
