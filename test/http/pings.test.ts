// The Pinging API: URL and query parsing (pure), then every route through app.request() on an in-process
// pool, and the Node request path (streamed body, socket address) through a real listening server.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { H3 } from "h3";
import { toNodeHandler } from "h3";
import type { PingRecord } from "../../engine/model.ts";
import { MINUTE } from "../../engine/model.ts";
import type { PingPath, PingQuery } from "../../http/routes/pings.ts";
import { parsePingPath, parsePingQuery, pingListener, pingRoutes, remoteAddress } from "../../http/routes/pings.ts";
import type { Routes } from "./harness.ts";
import { withRoutes } from "./harness.ts";

const U = "0f8fad5b-d9cb-469f-a165-70867728950e";
const U_UPPER = U.toUpperCase();

// ---- URL parsing -------------------------------------------------------------------------------

const paths: [path: string, want: PingPath | null][] = [
  [`/ping/${U}`, { by: "uuid", uuid: U, signal: "success", exitStatus: null }],
  [`/ping/${U}/`, { by: "uuid", uuid: U, signal: "success", exitStatus: null }],
  [`/ping/${U}/start`, { by: "uuid", uuid: U, signal: "start", exitStatus: null }],
  [`/ping/${U}/fail`, { by: "uuid", uuid: U, signal: "fail", exitStatus: null }],
  [`/ping/${U}/log`, { by: "uuid", uuid: U, signal: "log", exitStatus: null }],
  [`/ping/${U}/0`, { by: "uuid", uuid: U, signal: "success", exitStatus: 0 }],
  [`/ping/${U}/007`, { by: "uuid", uuid: U, signal: "success", exitStatus: 7 }],
  [`/ping/${U}/256`, { by: "uuid", uuid: U, signal: "success", exitStatus: 256 }],
  [`/ping/${U}/start/`, null],
  [`/ping/${U_UPPER}`, null],
  [`/ping/${U.replaceAll("-", "")}`, null],
  // anything else after a uuid falls through to the slug route (fact sheet §1)
  [`/ping/${U}/abc`, { by: "slug", pingKey: U, slug: "abc", signal: "success", exitStatus: null }],
  [`/ping/${U}/-1`, { by: "slug", pingKey: U, slug: "-1", signal: "success", exitStatus: null }],
  [`/ping/${U_UPPER}/start`, { by: "slug", pingKey: U_UPPER, slug: "start", signal: "success", exitStatus: null }],
  ["/ping/key_1/db-backup", { by: "slug", pingKey: "key_1", slug: "db-backup", signal: "success", exitStatus: null }],
  ["/ping/key/Backup", { by: "slug", pingKey: "key", slug: "Backup", signal: "success", exitStatus: null }],
  ["/ping/key/backup/start", { by: "slug", pingKey: "key", slug: "backup", signal: "start", exitStatus: null }],
  ["/ping/key/backup/fail", { by: "slug", pingKey: "key", slug: "backup", signal: "fail", exitStatus: null }],
  ["/ping/key/backup/log", { by: "slug", pingKey: "key", slug: "backup", signal: "log", exitStatus: null }],
  ["/ping/key/backup/3", { by: "slug", pingKey: "key", slug: "backup", signal: "success", exitStatus: 3 }],
  ["/ping/key/backup/", null], // no trailing-slash form by slug
  ["/ping/key/backup/other", null],
  ["/ping/key/backup/-1", null],
  ["/ping/key/back.up", null],
  ["/ping/key/backup/log/x", null],
  ["/ping", null],
  ["/ping/", null],
  ["/pings/" + U, null],
];
for (const [path, want] of paths) {
  test(`path ${path} → ${want === null ? "no route" : `${want.by} ${want.signal} ${want.exitStatus}`}`, () => {
    assert.equal(parsePingPath(path), want);
  });
}

const queries: [search: string, want: PingQuery][] = [
  ["", { rid: undefined, create: false }],
  ["?", { rid: undefined, create: false }],
  [`?rid=${U}`, { rid: U, create: false }],
  [`?rid=${U_UPPER}`, { rid: U, create: false }], // stored as a uuid: lower case
  ["?rid=", { rid: null, create: false }], // present but empty is invalid
  ["?rid", { rid: null, create: false }],
  ["?rid=not-a-uuid", { rid: null, create: false }],
  [`?rid=${U.replaceAll("-", "")}`, { rid: null, create: false }],
  [`?rid=nope&rid=${U}`, { rid: U, create: false }], // QueryDict.get: the last value wins
  ["?create=1", { rid: undefined, create: true }],
  ["?create=true", { rid: undefined, create: false }],
  ["?create=0", { rid: undefined, create: false }],
  ["?other=1", { rid: undefined, create: false }],
];
for (const [search, want] of queries) {
  test(`query "${search}" → rid ${want.rid}, create ${want.create}`, () => assert.equal(parsePingQuery(search), want));
}

const addresses: [forwardedFor: string | undefined, socket: string | undefined, want: string][] = [
  [undefined, "127.0.0.1", "127.0.0.1"],
  [undefined, "::ffff:10.1.2.3", "10.1.2.3"],
  [undefined, "::1", "::1"],
  [undefined, undefined, ""],
  ["1.2.3.4", "127.0.0.1", "1.2.3.4"],
  ["1.2.3.4:5678", "127.0.0.1", "1.2.3.4"],
  ["1.2.3.4, 10.0.0.1", "127.0.0.1", "1.2.3.4"],
  ["2001:db8::1, 10.0.0.1", "127.0.0.1", "2001:db8::1"],
  [" 1.2.3.4", "127.0.0.1", " 1.2.3.4"], // not trimmed, as the reference
  ["", "127.0.0.1", ""], // a present header wins even when empty
];
for (const [forwardedFor, socket, want] of addresses) {
  test(`remote address of X-Forwarded-For ${JSON.stringify(forwardedFor)} and socket ${socket} is "${want}"`, () => {
    assert.is(remoteAddress(forwardedFor, socket), want);
  });
}

// ---- routes on an in-process pool ----------------------------------------------------------------

const T0 = Date.UTC(2026, 0, 1);

type Harness = Routes & {
  /** Returns the check's ping log, oldest first. */
  pings(uuid: string): Promise<PingRecord[]>;
  newCheck(spec?: { name?: string; slug?: string }): Promise<string>;
};

async function withHarness(body: (h: Harness) => Promise<void>, projectInput: { pingBodyLimit?: number } = {}): Promise<void> {
  await withRoutes(
    pingRoutes,
    async (routes) => {
      const { pool, clock, project } = routes;
      const newCheck = async (spec: { name?: string; slug?: string } = {}) => {
        const created = await pool.createCheck(project.id, spec, [], clock.now());
        if (!created.ok) throw new Error(`createCheck failed: ${JSON.stringify(created.failure)}`);
        return created.value.check.uuid;
      };
      const pings = async (uuid: string) => {
        const listed = await pool.listPings(project.id, uuid);
        if (!listed.ok) throw new Error(`listPings failed: ${JSON.stringify(listed.failure)}`);
        return [...listed.value.pings].reverse();
      };
      await body({ ...routes, pings, newCheck });
    },
    { startAt: T0, projectInput },
  );
}

async function send(app: H3, path: string, init: RequestInit = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await app.request(`http://localhost${path}`, init);
  return { status: response.status, text: await response.text(), headers: response.headers };
}

test("a success answer is 200 OK, text/plain, with Ping-Body-Limit, CORS and never-cache headers", () =>
  withHarness(async ({ app, newCheck }) => {
    const uuid = await newCheck();
    const answer = await send(app, `/ping/${uuid}`);
    assert.is(answer.status, 200);
    assert.is(answer.text, "OK");
    assert.is(answer.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.is(answer.headers.get("ping-body-limit"), "10000");
    assert.is(answer.headers.get("access-control-allow-origin"), "*");
    assert.is(answer.headers.get("cache-control"), "max-age=0, no-cache, no-store, must-revalidate, private");
  }));

test("every suffix by uuid is recorded with its kind and exit status", () =>
  withHarness(async ({ app, newCheck, pings }) => {
    const uuid = await newCheck();
    for (const suffix of ["", "/", "/start", "/fail", "/log", "/0", "/1", "/255"]) {
      const answer = await send(app, `/ping/${uuid}${suffix}`);
      assert.equal([suffix, answer.status, answer.text], [suffix, 200, "OK"]);
    }
    assert.equal(
      (await pings(uuid)).map((p) => [p.kind, p.exitStatus]),
      [
        ["success", null],
        ["success", null],
        ["start", null],
        ["fail", null],
        ["log", null],
        ["success", 0],
        ["fail", 1],
        ["fail", 255],
      ],
    );
  }));

test("every suffix by ping key and slug is recorded with its kind and exit status", () =>
  withHarness(async ({ app, project, newCheck, pings }) => {
    const uuid = await newCheck({ slug: "backup" });
    for (const suffix of ["", "/start", "/fail", "/log", "/0", "/1", "/255"]) {
      const answer = await send(app, `/ping/${project.pingKey}/backup${suffix}`);
      assert.equal([suffix, answer.status, answer.text], [suffix, 200, "OK"]);
    }
    assert.equal(
      (await pings(uuid)).map((p) => [p.kind, p.exitStatus]),
      [
        ["success", null],
        ["start", null],
        ["fail", null],
        ["log", null],
        ["success", 0],
        ["fail", 1],
        ["fail", 255],
      ],
    );
  }));

test("HEAD, GET, POST and PUT are all pings, recorded with their method", () =>
  withHarness(async ({ app, newCheck, pings }) => {
    const uuid = await newCheck();
    for (const method of ["HEAD", "GET", "POST", "PUT"]) {
      const answer = await send(app, `/ping/${uuid}`, { method });
      assert.equal([method, answer.status, answer.text], [method, 200, method === "HEAD" ? "" : "OK"]);
    }
    assert.equal(
      (await pings(uuid)).map((p) => p.method),
      ["HEAD", "GET", "POST", "PUT"],
    );
  }));

test("rid: a valid one is recorded in lower case; empty or invalid gives 400 and records nothing", () =>
  withHarness(async ({ app, newCheck, pings }) => {
    const uuid = await newCheck();
    assert.is((await send(app, `/ping/${uuid}/start?rid=${U}`)).status, 200);
    assert.is((await send(app, `/ping/${uuid}?rid=${U_UPPER}`)).status, 200);
    for (const rid of ["", "nope", U.slice(1)]) {
      const answer = await send(app, `/ping/${uuid}?rid=${rid}`);
      assert.equal([rid, answer.status, answer.text], [rid, 400, "invalid uuid format"]);
    }
    assert.equal(
      (await pings(uuid)).map((p) => [p.kind, p.rid]),
      [
        ["start", U],
        ["success", U],
      ],
    );
  }));

test("exit status above 255 gives 400 and records nothing; for an unknown check 404 comes first", () =>
  withHarness(async ({ app, project, newCheck, pings }) => {
    const uuid = await newCheck({ slug: "backup" });
    assert.equal(await statusAndText(app, `/ping/${uuid}/256`), [400, "invalid url format"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/backup/256`), [400, "invalid url format"]);
    assert.equal(await statusAndText(app, `/ping/${U}/256`), [404, "not found"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/nothing/256`), [404, "not found"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/nothing?rid=bad`), [404, "not found"]);
    assert.equal(await pings(uuid), []);
  }));

test("unknown, upper-case and dash-less uuids and non-numeric suffixes give 404", () =>
  withHarness(async ({ app, newCheck, pings }) => {
    const uuid = await newCheck();
    for (const path of [
      `/ping/${U}`,
      `/ping/${uuid.toUpperCase()}`,
      `/ping/${uuid.replaceAll("-", "")}`,
      `/ping/${uuid}/abc`,
      `/ping/${uuid}/-1`,
      `/ping/${uuid}/success`,
      `/ping/${uuid}/start/`,
      "/ping/",
      "/ping/a/b/c/d",
    ]) {
      assert.equal([path, ...(await statusAndText(app, path))], [path, 404, "not found"]);
    }
    assert.equal(await pings(uuid), []);
  }));

test("an upper-case slug gives 400; an unknown ping key 404", () =>
  withHarness(async ({ app, project, newCheck, pings }) => {
    const uuid = await newCheck({ slug: "backup" });
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/Backup`), [400, "invalid url format"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/Backup?create=1`), [400, "invalid url format"]);
    assert.equal(await statusAndText(app, "/ping/no-such-key/backup"), [404, "not found"]);
    assert.equal(await statusAndText(app, "/ping/no-such-key/backup?create=1"), [404, "not found"]);
    assert.equal(await pings(uuid), []);
  }));

test("create=1 on an unknown slug creates the check and answers 201 Created; without it 404", () =>
  withHarness(async ({ app, pool, project, pings }) => {
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/nightly`), [404, "not found"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/nightly?create=0`), [404, "not found"]);
    assert.equal(await pool.listChecks(project.id, { tags: [] }), []);
    const answer = await send(app, `/ping/${project.pingKey}/nightly?create=1`);
    assert.equal([answer.status, answer.text], [201, "Created"]);
    assert.is(answer.headers.get("ping-body-limit"), "10000");
    assert.is(answer.headers.get("access-control-allow-origin"), "*");
    const [check] = await pool.listChecks(project.id, { tags: [] });
    assert.equal([check.name, check.slug, check.status], ["nightly", "nightly", "up"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/nightly?create=1`), [200, "OK"]);
    assert.is((await pings(check.uuid)).length, 2);
  }));

test("create=1 has no effect on uuid pings", () =>
  withHarness(async ({ app, pool, project }) => {
    assert.equal(await statusAndText(app, `/ping/${U}?create=1`), [404, "not found"]);
    assert.equal(await pool.listChecks(project.id, { tags: [] }), []);
  }));

test("a slug matching two checks gives 409 and records nothing, even with create=1", () =>
  withHarness(async ({ app, project, newCheck, pings }) => {
    const a = await newCheck({ slug: "twin" });
    const b = await newCheck({ slug: "twin" });
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/twin`), [409, "ambiguous slug"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/twin/fail?create=1`), [409, "ambiguous slug"]);
    assert.equal(await statusAndText(app, `/ping/${project.pingKey}/twin/999`), [409, "ambiguous slug"]);
    assert.equal([await pings(a), await pings(b)], [[], []]);
  }));

test("a body longer than the project's limit is cut there, and the limit is announced", () =>
  withHarness(
    async ({ app, pool, project, newCheck, pings }) => {
      const uuid = await newCheck();
      const body = "0123456789".repeat(25);
      const answer = await send(app, `/ping/${uuid}`, { method: "POST", body });
      assert.equal([answer.status, answer.text, answer.headers.get("ping-body-limit")], [200, "OK", "100"]);
      const [ping] = await pings(uuid);
      assert.is(ping.bodySize, 100);
      const stored = await pool.pingBody(project.id, uuid, ping.n);
      assert.is(stored.ok && Buffer.from(stored.value).toString(), body.slice(0, 100));
    },
    { pingBodyLimit: 100 },
  ));

test("a 100 kB body is accepted and stored cut to the limit", () =>
  withHarness(async ({ app, pool, project, newCheck, pings }) => {
    const uuid = await newCheck();
    const body = new Uint8Array(100_000).fill(97);
    const answer = await send(app, `/ping/${uuid}/log`, { method: "POST", body });
    assert.equal([answer.status, answer.text], [200, "OK"]);
    const [ping] = await pings(uuid);
    assert.equal([ping.kind, ping.bodySize], ["log", 10_000]);
    const stored = await pool.pingBody(project.id, uuid, ping.n);
    assert.is(stored.ok && stored.value.byteLength, 10_000);
  }));

test("a body within the limit is stored whole; no body stores nothing", () =>
  withHarness(async ({ app, pool, project, newCheck, pings }) => {
    const uuid = await newCheck();
    await send(app, `/ping/${uuid}`, { method: "POST", body: "all good" });
    await send(app, `/ping/${uuid}`);
    const [withBody, without] = await pings(uuid);
    const stored = await pool.pingBody(project.id, uuid, withBody.n);
    assert.is(stored.ok && Buffer.from(stored.value).toString(), "all good");
    assert.is(without.bodySize, 0);
  }));

test("scheme, remote address and user agent come from the headers; the user agent is cut to 200 characters", () =>
  withHarness(async ({ app, newCheck, pings }) => {
    const uuid = await newCheck();
    await send(app, `/ping/${uuid}`, {
      headers: { "x-forwarded-for": "1.2.3.4:5678, 10.0.0.1", "x-forwarded-proto": "https", "user-agent": "u".repeat(300) },
    });
    await send(app, `/ping/${uuid}`);
    const [forwarded, plain] = await pings(uuid);
    assert.equal([forwarded.scheme, forwarded.remoteAddr, forwarded.ua], ["https", "1.2.3.4", "u".repeat(200)]);
    assert.equal([plain.scheme, plain.ua], ["http", ""]);
  }));

test("the ping is stamped with the clock's instant", () =>
  withHarness(async ({ app, clock, newCheck, pings }) => {
    const uuid = await newCheck();
    clock.advance(5 * MINUTE);
    await send(app, `/ping/${uuid}`);
    assert.equal(
      (await pings(uuid)).map((p) => p.at),
      [T0 + 5 * MINUTE],
    );
  }));

test("through node:http: a 100 kB streamed body is cut, the socket address and method are recorded", () =>
  withHarness(async ({ app, newCheck, pings }) => {
    const uuid = await newCheck();
    const server = createServer(toNodeHandler(app));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const big = await fetch(`${base}/ping/${uuid}/fail`, { method: "POST", body: new Uint8Array(100_000).fill(98) });
      assert.equal(
        [big.status, await big.text(), big.headers.get("ping-body-limit"), big.headers.get("content-type")],
        [200, "OK", "10000", "text/plain; charset=utf-8"],
      );
      const head = await fetch(`${base}/ping/${uuid}`, { method: "HEAD" });
      assert.equal([head.status, await head.text()], [200, ""]);
      const small = await fetch(`${base}/ping/${uuid}/log`, { method: "PUT", body: "tiny", headers: { "user-agent": "curl/8" } });
      assert.is(small.status, 200);
      const missing = await fetch(`${base}/ping/${U}`, { method: "POST", body: "x".repeat(50_000) });
      assert.equal([missing.status, await missing.text()], [404, "not found"]);
      const recorded = await pings(uuid);
      assert.equal(
        recorded.map((p) => [p.kind, p.method, p.remoteAddr, p.bodySize]),
        [
          ["fail", "POST", "127.0.0.1", 10_000],
          ["success", "HEAD", "127.0.0.1", 0],
          ["log", "PUT", "127.0.0.1", 4],
        ],
      );
      assert.is(recorded[2].ua, "curl/8");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }));

// Spec: filter_http_body searches the first 10 kB of the body, whatever the project's ping_body_limit keeps.
for (const limit of [0, 100]) {
  test(`filter_http_body classifies on the first 10 kB though ping_body_limit is ${limit} (both /ping/ servers)`, () =>
    withHarness(
      async ({ app, pool, clock, project, pings }) => {
        const created = await pool.createCheck(
          project.id,
          { filterHttpBody: true, failureKw: "FAILED", successKw: "SUCCESS" },
          [],
          clock.now(),
        );
        if (!created.ok) throw new Error("createCheck failed");
        const uuid = created.value.check.uuid;
        const listener = pingListener({ pool, clock });
        const server = createServer((req, res) => {
          if (!listener(req, res)) void toNodeHandler(app)(req, res);
        });
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        try {
          const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          const padding = "x".repeat(200); // past a 100-byte limit, well within 10 kB
          const bodies = [
            `${padding} job FAILED`, // → fail
            `${padding} SUCCESS`, // → success
            `${"x".repeat(10_000)} FAILED`, // the keyword starts past the first 10 kB → no keyword: ignored
            `${"y".repeat(9_994)}FAILED`, // the keyword ends at byte 10,000 → fail
          ];
          for (const body of bodies) {
            const answer = await fetch(`${base}/ping/${uuid}`, { method: "POST", body });
            assert.equal([answer.status, await answer.text(), answer.headers.get("ping-body-limit")], [200, "OK", String(limit)]);
          }
          const viaH3 = await send(app, `/ping/${uuid}`, { method: "POST", body: `${padding} FAILED` });
          assert.is(viaH3.status, 200);
          const recorded = await pings(uuid);
          assert.equal(
            recorded.map((p) => [p.kind, p.bodySize]),
            [
              ["fail", limit],
              ["success", limit],
              ["ign", limit],
              ["fail", limit],
              ["fail", limit],
            ],
          );
          if (limit > 0) {
            const stored = await pool.pingBody(project.id, uuid, recorded[0].n);
            assert.is(stored.ok && Buffer.from(stored.value).toString(), padding.slice(0, limit), "the store keeps only the limit");
          }
        } finally {
          await new Promise((resolve) => server.close(resolve));
        }
      },
      { pingBodyLimit: limit },
    ));
}

async function statusAndText(app: H3, path: string): Promise<[number, string]> {
  const answer = await send(app, path);
  return [answer.status, answer.text];
}

test("the node:http fast path (npm start) answers and records exactly as the h3 route", () =>
  withHarness(async ({ app, pool, clock, project, newCheck, pings }) => {
    const listener = pingListener({ pool, clock });
    const server = createServer((req, res) => {
      if (!listener(req, res)) {
        res.writeHead(599).end();
      } // everything here is a ping path
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const viaH3 = await newCheck({ slug: "same" }),
        viaNode = await newCheck({ slug: "same-node" });
      await newCheck({ slug: "twice" });
      await newCheck({ slug: "twice" });
      const rid = "0F8FAD5B-D9CB-469F-A165-70867728950E";
      const cases: [path: (uuid: string, slug: string) => string, init: RequestInit][] = [
        [(u) => `/ping/${u}`, {}],
        [(u) => `/ping/${u}/`, { method: "HEAD" }],
        [(u) => `/ping/${u}/start?rid=${rid}`, { method: "POST", body: "starting" }],
        [
          (u) => `/ping/${u}/0?rid=${rid}`,
          {
            method: "PUT",
            headers: { "user-agent": "x".repeat(300), "x-forwarded-for": "10.1.1.1:5000, 10.2.2.2", "x-forwarded-proto": "https" },
          },
        ],
        [(u) => `/ping/${u}/fail`, { method: "POST", body: "y".repeat(20_000) }],
        [(u) => `/ping/${u}/log?rid=`, {}],
        [(u) => `/ping/${u}/256`, {}],
        [(u) => `/ping/${u}/-1`, {}],
        [(u) => `/ping/${u.toUpperCase()}`, {}],
        [(_u, slug) => `/ping/${project.pingKey}/${slug}/1`, {}],
        [(_u, slug) => `/ping/${project.pingKey}/${slug.toUpperCase()}`, {}],
        [() => `/ping/${project.pingKey}/twice`, {}],
        [(_u, slug) => `/ping/${project.pingKey}/${slug}-new?create=1`, {}],
        [() => `/ping/nope/nothing`, {}],
      ];
      for (const [path, given] of cases) {
        const init = { ...given, headers: { "user-agent": "probe", ...(given.headers as Record<string, string> | undefined) } };
        const h3 = await send(app, path(viaH3, "same"), init);
        const node = await fetch(`${base}${path(viaNode, "same-node")}`, init);
        const nodeText = await node.text();
        const headersOf = (h: Headers) =>
          ["content-type", "cache-control", "access-control-allow-origin", "ping-body-limit"].map((n) => h.get(n));
        assert.equal(
          [node.status, nodeText, headersOf(node.headers)],
          [h3.status, h3.text, headersOf(h3.headers)],
          path("<uuid>", "<slug>"),
        );
      }
      const facts = (list: PingRecord[]) =>
        list.map((p) => [
          p.n,
          p.kind,
          p.method,
          p.ua,
          p.rid,
          p.exitStatus,
          p.bodySize,
          p.scheme,
          p.remoteAddr === "127.0.0.1" || p.remoteAddr === "" ? "socket (none under app.request)" : p.remoteAddr,
        ]);
      assert.equal(facts(await pings(viaNode)), facts(await pings(viaH3)));
      assert.ok((await pings(viaNode)).length >= 5);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }));

test.run();
