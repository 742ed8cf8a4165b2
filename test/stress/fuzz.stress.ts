// Thousands of random requests from a seeded generator (FUZZ_SEED, FUZZ_REQUESTS) against the real server:
// a mix of valid and mutated requests across /api/v3, /ping, /badge, /b and /admin. Mutations go to a
// project of their own; a frozen project is only read (its read-only key anywhere, its read-write key on
// GET, its uuids under the other project's key) and its full dump must stay byte-identical.
// Pass = zero 5xx, no unexpected error logged, the server alive, the frozen dump unchanged.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { Populated, RealServer } from "../security/real-server.ts";
import {
  abortedIn,
  call,
  dumpDiff,
  dumpProject,
  populate,
  rawRequest,
  seeded,
  startServer,
  stopServer,
  troubleIn,
} from "../security/real-server.ts";

const TOKEN = "fuzz-stress-admin-token-0123456789";
const SEED = Number(process.env.FUZZ_SEED ?? 20260101);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 6000);
const CONCURRENCY = 8;

type Req = { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array; raw?: boolean };

test(`${REQUESTS} seeded random requests (seed ${SEED}): no 5xx, the frozen project unchanged, the server alive`, async () => {
  const dir = tempDir();
  const server: RealServer = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" } });
  try {
    const frozen = await populate(server, TOKEN, "frozen");
    const mutable = await populate(server, TOKEN, "mutable");
    await call(server.url, "POST", `/admin/v1/projects/${mutable.project.id}`, {}); // warm-up of an unknown route
    const badgePaths = async (p: Populated) => {
      const { badges } = JSON.parse((await call(server.url, "GET", "/api/v3/badges/", { key: p.project.api_key })).text) as {
        badges: Record<string, Record<string, string>>;
      };
      return [
        ...Object.values(badges).flatMap((formats) => Object.values(formats).map((u) => new URL(u).pathname)),
        ...p.checks.map((c) => new URL(c.badge_url).pathname),
      ];
    };
    const badges = [...(await badgePaths(frozen)), ...(await badgePaths(mutable))];
    const before = await dumpProject(server.url, frozen.project);

    const random = seeded(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const chance = (p: number) => random() < p;
    const int = (max: number) => Math.floor(random() * max);
    const randomUuid = () => "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx".replace(/x/g, () => int(16).toString(16));
    const garbage = () =>
      pick([
        "",
        "%",
        "%00",
        "%2F",
        "%2e%2e",
        "..",
        "/",
        "//",
        "\\",
        "?",
        "#",
        "%ff",
        "~",
        "é",
        "\u202e",
        "A",
        "-1",
        "99999999999999999999",
        " ",
        "\t",
        "'",
        '"',
        "<x>",
        "${x}",
        "%25",
      ]);

    const values = (): unknown =>
      pick([
        null,
        true,
        false,
        0,
        -1,
        59,
        60,
        3600,
        86_400,
        31_536_000,
        31_536_001,
        1.5,
        1e300,
        "",
        " ",
        "x",
        "POST",
        "*",
        "UTC",
        "Europe/Riga",
        "Mars/Base",
        "* * * * *",
        "0 0 31 2 *",
        "daily",
        "12:34",
        "a,b,c",
        "UPPER",
        "slug-ok",
        "n".repeat(101),
        [],
        {},
        ["name"],
        ["slug", "tags"],
        ["bogus"],
        "\u0000",
        "\ud800",
        300,
        100,
        101,
        "2026-01-01T00:00:00Z",
        "2026-02-30T00:00:00+01:00",
        "2999-12-31T23:59:59.999999-12:00",
      ]);
    const FIELDS = [
      "name",
      "slug",
      "tags",
      "desc",
      "timeout",
      "grace",
      "schedule",
      "tz",
      "manual_resume",
      "methods",
      "channels",
      "unique",
      "start_kw",
      "success_kw",
      "failure_kw",
      "subject",
      "subject_fail",
      "filter_subject",
      "filter_body",
      "filter_http_body",
      "filter_default_fail",
      "failure_threshold",
      "reminder_interval",
      "muted_until",
      "unknown",
    ];
    const checkBody = () => JSON.stringify(Object.fromEntries(Array.from({ length: int(5) }, () => [pick(FIELDS), values()])));

    const mutateText = (text: string): string => {
      if (text.length === 0) return garbage();
      const at = int(text.length);
      switch (int(7)) {
        case 0:
          return text.slice(0, at) + garbage() + text.slice(at + 1);
        case 1:
          return text.slice(0, at);
        case 2:
          return text.toUpperCase();
        case 3:
          return text.slice(0, at) + garbage() + text.slice(at);
        case 4:
          return text + garbage();
        case 5:
          return text.replace(/\//g, () => (chance(0.3) ? "//" : "/"));
        default:
          return text.slice(0, at) + String.fromCharCode(int(256)) + text.slice(at + 1);
      }
    };

    const m = mutable.project;
    const f = frozen.project;
    const mCheck = () => pick(mutable.checks).uuid;
    const apiPaths = (uuid: string, uniqueKey: string) => [
      "/api/v3/checks/",
      `/api/v3/checks/${uuid}`,
      `/api/v3/checks/${uniqueKey}`,
      `/api/v3/checks/${uuid}/pause`,
      `/api/v3/checks/${uuid}/resume`,
      `/api/v3/checks/${uuid}/pings/`,
      `/api/v3/checks/${uuid}/pings/${int(6)}/body`,
      `/api/v3/checks/${uuid}/flips/`,
      `/api/v3/checks/${uuid}/flips/?${pick(["seconds", "start", "end"])}=${pick(["0", "60", "-1", "1.5", "abc", "", "99999999999", "1700000000"])}`,
      "/api/v3/channels/",
      "/api/v3/badges/",
      "/api/v3/status/",
      `/api/v3/checks/?slug=${pick(["slug-mutable", "", "x"])}&tag=${pick(["t-mutable", "prod", ""])}`,
    ];

    /** One request: valid or mutated, aimed so that nothing can change the frozen project. */
    const generate = (): { req: Req; kind: string } => {
      const kind = pick([
        "api-mutable",
        "api-mutable",
        "api-frozen-ro",
        "api-frozen-rw-get",
        "api-cross",
        "ping",
        "ping",
        "badge",
        "admin",
      ]);
      const method = pick(["GET", "GET", "POST", "POST", "DELETE", "HEAD", "OPTIONS", "PUT", "PATCH"]);
      let req: Req;
      switch (kind) {
        case "api-mutable": {
          const c = pick([...mutable.checks, { uuid: randomUuid(), unique_key: "0".repeat(40) }]);
          req = {
            method,
            path: pick(apiPaths(c.uuid, "unique_key" in c ? c.unique_key : "")),
            headers: chance(0.9) ? { "x-api-key": chance(0.85) ? m.api_key : m.api_key_readonly } : {},
          };
          if (method === "POST") req.body = chance(0.8) ? checkBody() : pick(["", "{", "null", "[]", '{"api_key": "' + m.api_key + '"}']);
          break;
        }
        case "api-frozen-ro": {
          const c = pick(frozen.checks);
          req = {
            method,
            path: pick(apiPaths(c.uuid, c.unique_key)),
            headers: { "x-api-key": f.api_key_readonly },
            body: method === "POST" ? checkBody() : undefined,
          };
          break;
        }
        case "api-frozen-rw-get": {
          const c = pick(frozen.checks);
          req = { method: pick(["GET", "OPTIONS"]), path: pick(apiPaths(c.uuid, c.unique_key)), headers: { "x-api-key": f.api_key } };
          break;
        }
        case "api-cross": {
          // the mutable project's keys on the frozen project's checks
          const c = pick(frozen.checks);
          req = {
            method,
            path: pick(apiPaths(c.uuid, c.unique_key)),
            headers: { "x-api-key": pick([m.api_key, m.api_key_readonly]) },
            body: method === "POST" ? checkBody() : undefined,
          };
          break;
        }
        case "ping": {
          const suffix = pick(["", "/start", "/fail", "/log", "/0", "/1", "/255", "/256", "/-1", "/abc", "/"]);
          const query = pick([
            "",
            `?rid=${randomUuid()}`,
            "?rid=bad",
            "?create=1",
            "?create=0",
            `?rid=${randomUuid().toUpperCase()}&create=1`,
          ]);
          const target = chance(0.6) ? mCheck() : `${m.ping_key}/${pick(["slug-mutable", "new-slug-" + int(30), "UPPER", "x"])}`;
          req = {
            method: pick(["GET", "POST", "POST", "HEAD", "PUT", "DELETE"]),
            path: `/ping/${target}${suffix}${query}`,
            headers: { "user-agent": pick(["curl", "", "x".repeat(300)]) },
          };
          if (req.method === "POST" && chance(0.7))
            req.body = pick(["OK", "ERROR", "", "x".repeat(int(20_000)), "\u0000\u00ff", JSON.stringify({ a: 1 })]);
          break;
        }
        case "badge":
          req = { method: pick(["GET", "GET", "HEAD", "OPTIONS", "POST"]), path: pick(badges), headers: {} };
          break;
        default: {
          // admin: never the clock or prune with the right token (they would change the frozen project)
          const good = { authorization: `Bearer ${TOKEN}` };
          req = pick<Req>([
            { method: "GET", path: "/admin/v1/projects", headers: good },
            { method: "GET", path: "/admin/v1/clock", headers: good },
            {
              method: "POST",
              path: "/admin/v1/projects",
              headers: good,
              body: JSON.stringify({ name: pick(["fz", "", 1, null]), check_limit: values() }),
            },
            {
              method: "POST",
              path: `/admin/v1/projects/${m.id}/channels`,
              headers: good,
              body: JSON.stringify({
                kind: pick(["email", "webhook", "ntfy", "slack", "sms"]),
                value: pick(["a@b.c", "http://127.0.0.1:9/x", "nope", null, { url: "http://x", topic: "t" }]),
              }),
            },
            { method: "GET", path: `/admin/v1/projects/${m.id}/channels`, headers: good },
            {
              method: pick(["POST", "GET"]),
              path: "/admin/v1/clock",
              headers: { authorization: `Bearer ${TOKEN}x` },
              body: '{"advance": 86400}',
            },
            { method: "POST", path: "/admin/v1/prune", headers: { authorization: pick(["", "Bearer", `Basic ${TOKEN}`]) }, body: "{}" },
          ]);
        }
      }
      if (req.body !== undefined && !["POST", "PUT", "PATCH", "DELETE"].includes(req.method)) req.body = undefined;
      if (chance(0.4)) {
        // mutate the path, a header or the body (never the method: the frozen read-write key stays on GET)
        const what = int(3);
        if (what === 0) req.path = "/" + mutateText(req.path.slice(1));
        else if (what === 1 && Object.keys(req.headers).length > 0) {
          const name = pick(Object.keys(req.headers));
          if (chance(0.5)) req.headers[name] = mutateText(req.headers[name]);
          else delete req.headers[name];
        } else if (typeof req.body === "string" && ["POST", "PUT", "PATCH", "DELETE"].includes(req.method)) req.body = mutateText(req.body);
        req.raw = true; // mutated text may be unsendable by fetch: send the bytes as they are
      }
      return { req, kind };
    };

    const statuses = new Map<string, number>();
    const fiveHundreds: string[] = [];
    let sent = 0,
      rawSent = 0,
      noAnswer = 0;
    const send = async ({ req, kind }: { req: Req; kind: string }) => {
      let status: number | null;
      if (req.raw) {
        rawSent += 1;
        const body = typeof req.body === "string" ? Buffer.from(req.body, "latin1") : Buffer.from(req.body ?? new Uint8Array());
        const head =
          `${req.method} ${req.path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
          Object.entries(req.headers)
            .map(([k, v]) => `${k}: ${v}\r\n`)
            .join("") +
          `Content-Length: ${body.length}\r\n\r\n`;
        status = (await rawRequest(server.port, Buffer.concat([Buffer.from(head, "latin1"), body]), { timeoutMs: 5_000 })).status;
      } else {
        try {
          const response = await fetch(server.url + req.path, {
            method: req.method,
            headers: req.headers,
            body: req.body === undefined ? undefined : typeof req.body === "string" ? req.body : new Blob([new Uint8Array(req.body)]),
          });
          await response.arrayBuffer();
          status = response.status;
        } catch {
          status = null; // fetch refused the request itself (e.g. an invalid header value)
        }
      }
      sent += 1;
      if (status === null) noAnswer += 1;
      const label = status === null ? "none" : `${Math.floor(status / 100)}xx`;
      statuses.set(label, (statuses.get(label) ?? 0) + 1);
      if (status !== null && status >= 500)
        fiveHundreds.push(
          `${status} [${kind}] ${req.method} ${req.path} ${JSON.stringify(req.headers)} ${String(req.body ?? "").slice(0, 100)}`,
        );
    };

    const queue = Array.from({ length: REQUESTS }, generate); // generated up front: the sequence depends on the seed only
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) await send(next);
      }),
    );
    const seconds = (Date.now() - started) / 1000;

    const after = await dumpProject(server.url, frozen.project);
    const alive = server.alive() && (await call(server.url, "GET", "/api/v3/status/")).status === 200;
    console.log(
      `  fuzz seed ${SEED}: ${sent} requests (${rawSent} raw) in ${seconds.toFixed(1)} s; ` +
        `answers ${[...statuses]
          .sort()
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}; ${fiveHundreds.length} 5xx; ` +
        `${abortedIn(server.output())} "Error: aborted" log lines; server alive: ${alive}; frozen project ${after === before ? "unchanged" : "CHANGED"}`,
    );
    assert.equal(fiveHundreds.slice(0, 20), []);
    assert.ok(alive, "the server is alive");
    const diff = dumpDiff(before, after);
    assert.ok(diff === "", diff);
    assert.equal(troubleIn(server.output()), [], server.output().slice(-3000));
    assert.ok(noAnswer < sent / 4, `most requests were answered: ${noAnswer} without an answer`);
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test.run();
