// The admin API as the CLI's commands call it (`hcd export`, `hcd apply`, `hcd import`), many requests in
// one run: over HTTP to a running server (--url, a cluster node too), or in-process on a stopped DATA_DIR
// through the same app (app/in-process-admin.ts), so both ways validate, answer and record alike.
import type { Settings } from "./config.ts";
import { openInProcessAdmin } from "./in-process-admin.ts";

export type AdminAnswer = { readonly status: number; readonly json: unknown };

export type AdminClient = {
  /** Sends one admin request; answers its status and JSON (a body that is not JSON as {"error": text}); rejects only when the server cannot be reached. */
  request(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<AdminAnswer>;
  close(): Promise<void>;
};

/** How long one admin request may take: an imported check's pings with their bodies are the largest. */
const REQUEST_MS = 120_000;

/** An admin answer that is not 2xx, as an error naming the request and the server's reason. */
export class AdminError extends Error {
  readonly answer: AdminAnswer;
  constructor(method: string, path: string, answer: AdminAnswer) {
    const reason = (answer.json as { error?: unknown } | null)?.error;
    super(`${method} ${path}: ${answer.status} ${typeof reason === "string" ? reason : JSON.stringify(answer.json)}`);
    this.answer = answer;
  }
}

/** Sends a request and returns its JSON; throws AdminError unless the answer is 2xx. */
export async function call(client: AdminClient, method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown): Promise<unknown> {
  const answer = await client.request(method, path, body);
  if (answer.status < 200 || answer.status > 299) throw new AdminError(method, path, answer);
  return answer.json;
}

/** The admin API of the server at `url` with its admin token. */
export function httpAdminClient(url: string, token: string): AdminClient {
  const base = url.endsWith("/") ? url : `${url}/`;
  return {
    request: async (method, path, body) => {
      const target = new URL(path.replace(/^\//, ""), base);
      let res: Response;
      try {
        res = await fetch(target, { ...init(method, token, body), signal: AbortSignal.timeout(REQUEST_MS) });
      } catch (error) {
        throw new Error(
          `hcd at ${target.origin} did not answer ${method} ${path}: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      return answerOf(res);
    },
    close: async () => {},
  };
}

/**
 * The admin API on a stopped server's DATA_DIR (app/in-process-admin.ts: locked while the client is open,
 * its users and audit log kept). Applies no deadlines and sends nothing: the server does that when it next starts.
 */
export async function dataDirAdminClient(settings: Settings): Promise<AdminClient> {
  const admin = await openInProcessAdmin(settings);
  let closed = false;
  return {
    request: async (method, path, body) =>
      answerOf(await admin.fetch(new Request(new URL(path, "http://localhost/"), init(method, admin.token, body)))),
    close: async () => {
      if (closed) return;
      closed = true;
      await admin.close();
    },
  };
}

function init(method: string, token: string, body: unknown): RequestInit {
  return {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  };
}

async function answerOf(res: Response): Promise<AdminAnswer> {
  const text = await res.text();
  try {
    return { status: res.status, json: text === "" ? null : JSON.parse(text) };
  } catch {
    return { status: res.status, json: { error: text.slice(0, 500) } }; // a proxy's error page: its start names it
  }
}
