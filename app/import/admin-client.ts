// Where an import writes: the admin API of a running server (--url, a cluster's node too) or of a stopped
// DATA_DIR served in-process (app/in-process-admin.ts). Both go through the same routes, so an import is
// validated and recorded as any other admin request.
import type { Settings } from "../config.ts";
import { openInProcessAdmin } from "../in-process-admin.ts";

export type AdminAnswer = { readonly status: number; readonly json: unknown };

export type AdminClient = {
  /** Sends one admin request; rejects only when the server cannot be reached. */
  call(method: "GET" | "POST" | "PUT", path: string, body?: unknown): Promise<AdminAnswer>;
  close(): Promise<void>;
};

/** How long one admin request may take: a check's pings with their bodies are the largest. */
const REQUEST_MS = 120_000;

/** The admin API of the server at `url`, with its admin token. */
export function httpAdmin(url: string, token: string): AdminClient {
  const base = url.endsWith("/") ? url : `${url}/`;
  return {
    call: async (method, path, body) => {
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

/** The admin API of a stopped server's DATA_DIR, served in this process until `close`. */
export async function inProcessAdmin(settings: Settings): Promise<AdminClient> {
  const admin = await openInProcessAdmin(settings);
  return {
    call: async (method, path, body) =>
      answerOf(await admin.fetch(new Request(new URL(path, "http://localhost/"), init(method, admin.token, body)))),
    close: () => admin.close(),
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
    return { status: res.status, json: { error: text.slice(0, 500) } };
  }
}
