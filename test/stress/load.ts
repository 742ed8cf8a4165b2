// Load for the stress tests: pingers that each carry their own rid, so that every acknowledged ping can
// be looked up after a restart, and requests over fresh or kept-alive connections whose failures are told
// apart: refused (never started), reset (started, cut before an answer), or answered.
import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { call, ok } from "../security/real-server.ts";

export type Outcome = { status: number; body: string } | { error: "refused" | "reset" | "other"; code: string };

/** Sends one request on a fresh connection (no keep-alive) and says how it ended. */
export function freshRequest(url: string, method: string, path: string, body?: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      url + path,
      { method, agent: false, headers: body === undefined ? {} : { "content-length": Buffer.byteLength(body) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", (error: NodeJS.ErrnoException) => resolve({ error: "reset", code: error.code ?? error.message }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? error.message;
      resolve({
        error:
          code === "ECONNREFUSED"
            ? "refused"
            : code === "ECONNRESET" || code === "EPIPE" || /hang up/.test(error.message)
              ? "reset"
              : "other",
        code,
      });
    });
    req.end(body);
  });
}

/** Sends one request with fetch (undici, kept-alive connections) and says how it ended. */
export async function keptAliveRequest(url: string, method: string, path: string, body?: string): Promise<Outcome> {
  try {
    const response = await fetch(url + path, { method, body });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
    const code = cause?.code ?? cause?.message ?? String(error);
    return {
      error: code === "ECONNREFUSED" ? "refused" : /ECONNRESET|EPIPE|other side closed|UND_ERR_SOCKET/.test(code) ? "reset" : "other",
      code,
    };
  }
}

export type PingTally = {
  /** check uuid → rids of the pings answered 200 "OK" (durable by contract). */
  acknowledged: Map<string, Set<string>>;
  answered: number;
  refused: number;
  reset: number;
  /** check uuid → rids of the pings whose connection was reset before an answer. */
  cut: Map<string, Set<string>>;
  other: string[];
  statuses: Map<number, number>;
};

export function newTally(uuids: readonly string[]): PingTally {
  return {
    acknowledged: new Map(uuids.map((u) => [u, new Set()])),
    answered: 0,
    refused: 0,
    reset: 0,
    cut: new Map(uuids.map((u) => [u, new Set()])),
    other: [],
    statuses: new Map(),
  };
}

/** Runs `clients` pingers until `stop()` is true or the server refuses; every ping has its own rid. */
export async function pingUntil(opts: {
  url: string;
  uuids: readonly string[];
  clients: number;
  tally: PingTally;
  stop: () => boolean;
  send?: typeof freshRequest;
}): Promise<void> {
  const send = opts.send ?? freshRequest;
  await Promise.all(
    Array.from({ length: opts.clients }, async (_, client) => {
      for (let i = 0; !opts.stop(); i++) {
        const uuid = opts.uuids[(client + i) % opts.uuids.length];
        const rid = randomUUID();
        const outcome = await send(opts.url, "POST", `/ping/${uuid}?rid=${rid}`, `client ${client} ping ${i}`);
        if ("status" in outcome) {
          opts.tally.answered += 1;
          opts.tally.statuses.set(outcome.status, (opts.tally.statuses.get(outcome.status) ?? 0) + 1);
          if (outcome.status === 200 && outcome.body === "OK") opts.tally.acknowledged.get(uuid)?.add(rid);
        } else if (outcome.error === "refused") {
          opts.tally.refused += 1;
          return; // the server stopped listening: this client is done
        } else if (outcome.error === "reset") {
          opts.tally.reset += 1;
          opts.tally.cut.get(uuid)?.add(rid);
        } else {
          opts.tally.other.push(outcome.code);
          return;
        }
      }
    }),
  );
}

/**
 * Returns the cut rids that the server nevertheless stored: requests it accepted and processed but whose
 * answer it cut. (A cut request it never stored was reset before the server read it, e.g. still in the
 * kernel's accept queue when the listener closed: no server can answer those.)
 */
export async function processedButCut(url: string, apiKey: string, tally: PingTally): Promise<string[]> {
  const found: string[] = [];
  for (const [uuid, rids] of tally.cut) {
    if (rids.size === 0) continue;
    const { pings } = await ok<{ pings: { rid: string | null }[] }>(call(url, "GET", `/api/v3/checks/${uuid}/pings/`, { key: apiKey }));
    const stored = new Set(pings.map((p) => p.rid));
    for (const rid of rids) if (stored.has(rid)) found.push(`${uuid} ${rid}`);
  }
  return found;
}

/** Returns the acknowledged rids missing from the ping logs (ping_log_limit must exceed the pings per check). */
export async function lostPings(url: string, apiKey: string, tally: PingTally): Promise<{ lost: string[]; acknowledged: number }> {
  const lost: string[] = [];
  let acknowledged = 0;
  for (const [uuid, rids] of tally.acknowledged) {
    const { pings } = await ok<{ pings: { rid: string | null }[] }>(call(url, "GET", `/api/v3/checks/${uuid}/pings/`, { key: apiKey }));
    const stored = new Set(pings.map((p) => p.rid));
    for (const rid of rids) if (!stored.has(rid)) lost.push(`${uuid} ${rid}`);
    acknowledged += rids.size;
  }
  return { lost, acknowledged };
}

/** Waits `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
