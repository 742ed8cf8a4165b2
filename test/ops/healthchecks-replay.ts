// A Healthchecks API on loopback that answers with the fixture's recorded answers (api/index.json: path,
// key kind, status, file): each key gets its own project's answers, an unknown key 401, anything
// unrecorded 404. Tests bend it: `versions` it answers, 429s before an answer, a request held until
// released, answers replaced by hostile ones.
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fixtureKeys } from "./healthchecks-fixture.ts";

type Recording = { path: string; key: "rw" | "ro" | null; status: number; file: string };

export type ReplayOptions = {
  /** API versions answered (others 404), default all three. */
  readonly versions?: readonly number[];
  /** Answers 429 (Retry-After: 1) this many times to each request whose path matches, before answering. */
  readonly tooMany?: { readonly match: RegExp; readonly times: number };
  /** Holds the first request whose path matches until `release()`; `held` resolves when it arrives. */
  readonly hold?: RegExp;
  /** Replaces the answer to a path: status and body (a string, or bytes). */
  readonly replace?: (path: string) => { status: number; body: string | Uint8Array; type?: string } | null;
};

export type Replay = {
  readonly url: string;
  /** Every request's path, in order. */
  readonly requests: string[];
  readonly held: Promise<void>;
  release(): void;
  close(): Promise<void>;
};

export async function startReplay(dir: string, options: ReplayOptions = {}): Promise<Replay> {
  const index = JSON.parse(readFileSync(join(dir, "api", "index.json"), "utf8")) as Record<string, Omit<Recording, "file">>;
  const recordings: Recording[] = Object.entries(index).map(([file, r]) => ({ ...r, file }));
  const keys = fixtureKeys(dir);
  const projectOfKey = new Map<string, { project: string; kind: "rw" | "ro" }>();
  keys.projects.forEach((p, i) => {
    projectOfKey.set(p.api_key_rw, { project: `p${i + 1}`, kind: "rw" });
    projectOfKey.set(p.api_key_ro, { project: `p${i + 1}`, kind: "ro" });
  });
  const requests: string[] = [];
  const tooMany = new Map<string, number>();
  let release = () => {};
  let arrived = () => {};
  const held = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const releasing = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = options.hold;

  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://replay").pathname;
    requests.push(path);
    if (options.tooMany !== undefined && options.tooMany.match.test(path) && (tooMany.get(path) ?? 0) < options.tooMany.times) {
      tooMany.set(path, (tooMany.get(path) ?? 0) + 1);
      res.writeHead(429, { "retry-after": "1", "content-type": "application/json" }).end('{"error": "rate limit exceeded"}');
      return;
    }
    if (holding !== undefined && holding.test(path)) {
      holding = undefined;
      arrived();
      await releasing;
    }
    const replaced = options.replace?.(path) ?? null;
    if (replaced !== null) {
      res.writeHead(replaced.status, { "content-type": replaced.type ?? "application/json" }).end(replaced.body);
      return;
    }
    const version = /^\/api\/v(\d)\//.exec(path)?.[1];
    if (version !== undefined && !(options.versions ?? [1, 2, 3]).includes(Number(version))) return notFound(res);
    const key = req.headers["x-api-key"];
    if (typeof key !== "string" || key === "") return json(res, 401, '{"error": "missing api key"}');
    const caller = projectOfKey.get(key);
    if (caller === undefined) return json(res, 401, '{"error": "wrong api key"}');
    const found = recordings.find((r) => r.path === path && r.key === caller.kind && r.file.startsWith(`${caller.project}/`));
    if (found === undefined) return notFound(res);
    const body = readFileSync(join(dir, "api", found.file));
    res.writeHead(found.status, { "content-type": found.file.endsWith(".json") ? "application/json" : "text/plain" }).end(body);
  };
  const server = createServer((req, res) => {
    void answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    held,
    release,
    close: () => {
      release();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(body);
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
}
