// A dashboard client for the security tests against a real server: form posts from a chosen loopback
// address (127.0.0.0/8 is all this machine's), sign-in as a user or with a key, and a session's CSRF token.
import { request } from "node:http";
import type { RealServer } from "./real-server.ts";

export type FormAnswer = { status: number; text: string; cookie: string; location: string | null };

/** POSTs `fields` as a form to `path`, from `from` (a loopback address; default 127.0.0.1), with `cookie` and `headers`. */
export function postForm(
  url: string,
  path: string,
  fields: Record<string, string>,
  opts: { from?: string; cookie?: string; headers?: Record<string, string> } = {},
): Promise<FormAnswer> {
  const body = new URLSearchParams(fields).toString();
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: "POST",
        localAddress: opts.from,
        agent: false, // a fresh connection each, so the address is this request's
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          const setCookie = res.headers["set-cookie"] ?? [];
          const session = setCookie.map((c) => c.split(";")[0]).find((c) => c.startsWith("hcd_session=")) ?? "";
          resolve({ status: res.statusCode ?? 0, text, cookie: session, location: res.headers.location ?? null });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** GETs `path` with `cookie`; the page's text and status (redirects not followed). */
export async function getPage(url: string, path: string, cookie: string): Promise<{ status: number; text: string }> {
  const response = await fetch(new URL(path, url), { headers: { cookie }, redirect: "manual" });
  return { status: response.status, text: await response.text() };
}

/** The CSRF token of the session's pages (the first form's). */
export async function csrfOf(url: string, cookie: string, path = "/account"): Promise<string> {
  const { text } = await getPage(url, path, cookie);
  const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
  if (token === undefined) throw new Error(`no CSRF token on ${path}: ${text.slice(0, 300)}`);
  return token;
}

/** Signs in with email and password; the session cookie ("" when refused). */
export async function signInUser(server: RealServer | string, email: string, password: string, from?: string): Promise<FormAnswer> {
  return postForm(typeof server === "string" ? server : server.url, "/signin/password", { email, password }, { from });
}

/** Signs in with the admin token or an API key; the session cookie. */
export async function signInKey(url: string, key: string): Promise<string> {
  const answer = await postForm(url, "/signin", { key });
  if (answer.status !== 303) throw new Error(`sign-in with a key: ${answer.status} ${answer.text.slice(0, 200)}`);
  return answer.cookie;
}

/** Counts the statuses of answers: { 303: 1, 401: 9, 429: 190 }. */
export function statusCounts(answers: readonly { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
