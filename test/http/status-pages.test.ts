// Public status pages over real HTTP (CONTRACT "Status pages"): the admin API adds, lists and removes them
// and refuses bad input; /status/<slug> and its .json show names, status words, 90-day uptime and the
// incidents worked out from the flips, nothing secret, user text as text; a view is kept for 5 s.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Api } from "./harness.ts";
import { ADMIN_TOKEN, T0, withServedApi } from "./harness.ts";

type Json = Record<string, unknown>;

async function send(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string; json: unknown; headers: Headers }> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

/** Moves the virtual clock by `seconds` through the admin API (every deadline inside fires). */
async function advance(url: string, seconds: number): Promise<void> {
  assert.is((await send(url, "POST", "/admin/v1/clock", { advance: seconds })).status, 200);
}

async function twoChecks(api: Api): Promise<{ a: string; b: string }> {
  const a = String((await api.create({ name: "<script>alert(1)</script> backup", timeout: 3600, grace: 60 })).uuid);
  const b = String((await api.create({ name: "mailer", timeout: 1800, grace: 60 })).uuid);
  return { a, b };
}

test("admin API: POST 201, GET lists, DELETE 204 then 404; an API key is not the admin", () =>
  withServedApi(async (api, url) => {
    const { a, b } = await twoChecks(api);
    const path = `/admin/v1/projects/${api.project.id}/status-pages`;
    const made = await send(url, "POST", path, { slug: "acme", title: "Acme services", checks: [a, b] });
    assert.is(made.status, 201, made.text);
    assert.equal(made.json, {
      slug: "acme",
      title: "Acme services",
      checks: [a, b],
      url: "http://hc.test/status/acme",
      created: "2026-01-15T12:00:00+00:00",
    });
    assert.equal(
      ((await send(url, "GET", path)).json as { status_pages: Json[] }).status_pages.map((p) => p.slug),
      ["acme"],
    );
    const byKey = await fetch(url + path, {
      method: "POST",
      headers: { "x-api-key": api.project.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ slug: "x", title: "x", checks: [a] }),
    });
    assert.is(byKey.status, 401);
    const removed = await send(url, "DELETE", `${path}/acme`);
    assert.equal([removed.status, removed.text], [204, ""]);
    assert.is((await send(url, "DELETE", `${path}/acme`)).status, 404);
    assert.equal((await send(url, "GET", path)).json, { status_pages: [] });
    assert.is((await fetch(`${url}/status/acme.json`)).status, 404, "a removed page is gone at once");
  }));

test("admin API: bad input is a 400 with an error (a taken slug 409) and adds nothing", () =>
  withServedApi(async (api, url) => {
    const { a } = await twoChecks(api);
    const other = await api.newProject({ name: "other" });
    const theirs = await api.call("POST", `${api.root}/checks/`, { key: other.apiKey, body: { name: "theirs" } });
    const foreign = String((theirs.json as Json).ping_url)
      .split("/")
      .at(-1);
    const path = `/admin/v1/projects/${api.project.id}/status-pages`;
    assert.is((await send(url, "POST", path, { slug: "taken", title: "T", checks: [a] })).status, 201);
    const good = { slug: "fine", title: "T", checks: [a] };
    const bad: Json[] = [
      { ...good, slug: "Upper" },
      { ...good, slug: "-dash" },
      { ...good, slug: "has space" },
      { ...good, slug: "a.json" },
      { ...good, slug: "x".repeat(65) },
      { ...good, slug: 5 },
      { title: "T", checks: [a] },
      { ...good, title: "" },
      { ...good, title: "   " },
      { ...good, title: "x".repeat(101) },
      { ...good, checks: [] },
      { ...good, checks: "all" },
      { ...good, checks: ["not-a-uuid"] },
      { ...good, checks: [a, a] },
      { ...good, checks: ["00000000-0000-4000-8000-000000000000"] },
      { ...good, checks: [foreign] },
    ];
    for (const body of bad) {
      const answer = await send(url, "POST", path, body);
      assert.is(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
      assert.type((answer.json as Json).error, "string");
    }
    assert.is((await send(url, "POST", path, "[1]")).status, 400);
    const taken = await send(url, "POST", path, { ...good, slug: "taken" });
    assert.equal([taken.status, taken.json], [409, { error: "json validation error: slug is already taken" }]);
    const otherProject = await send(url, "POST", `/admin/v1/projects/${other.id}/status-pages`, {
      slug: "taken",
      title: "T",
      checks: [foreign],
    });
    assert.is(otherProject.status, 409, "a slug is unique over every project");
    assert.equal(
      ((await send(url, "GET", path)).json as { status_pages: Json[] }).status_pages.map((p) => p.slug),
      ["taken"],
    );
    assert.is((await send(url, "GET", "/admin/v1/projects/00000000-0000-4000-8000-000000000000/status-pages")).status, 404);
  }));

test("public page: names, status words, 90-day uptime and incidents from the flips; nothing secret; text escaped", () =>
  withServedApi(async (api, url) => {
    const { a, b } = await twoChecks(api);
    await api.ping(a, { body: new TextEncoder().encode("SECRET-BODY-TEXT") });
    await api.ping(b);
    await advance(url, 7200); // b down at T0+1860, a down at T0+3660
    await api.ping(a); // a up again at T0+7200
    await advance(url, 3600);
    await api.ping(a); // now T0+10800
    assert.is(
      (
        await send(url, "POST", `/admin/v1/projects/${api.project.id}/status-pages`, {
          slug: "acme",
          title: "Acme & <b>co</b>",
          checks: [a, b],
        })
      ).status,
      201,
    );

    const res = await fetch(`${url}/status/acme.json`);
    assert.is(res.status, 200);
    const doc = (await res.json()) as Json;
    const iso = (s: number) => new Date(T0 + s * 1000).toISOString().replace(".000Z", "+00:00");
    const pct = (down: number) => Math.round(((10_800 - down) / 10_800) * 10_000) / 100;
    assert.equal(doc, {
      title: "Acme & <b>co</b>",
      overall: { status: "partial_outage", down: 1, late: 0, total: 2 },
      checks: [
        { name: "<script>alert(1)</script> backup", status: "up", uptime_90d: pct(7200 - 3660), unknown_90d: 0 },
        { name: "mailer", status: "down", uptime_90d: pct(10_800 - 1860), unknown_90d: 0 },
      ],
      incidents: [
        { check: "<script>alert(1)</script> backup", started: iso(3660), ended: iso(7200) },
        { check: "mailer", started: iso(1860), ended: null },
      ],
      unknown: [],
    });

    const page = await fetch(`${url}/status/acme`);
    assert.is(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /text\/html/);
    const body = await page.text();
    assert.ok(body.includes("&lt;script&gt;alert(1)&lt;/script&gt; backup"), "the name shows as text");
    assert.not.ok(body.includes("<script>"), "no markup from a name");
    assert.ok(body.includes("<h1>Acme &amp; &lt;b&gt;co&lt;/b&gt;</h1>"));
    assert.match(body, />up</);
    assert.match(body, />down</);
    assert.ok(body.includes(`${pct(7200 - 3660)}%`) && body.includes(`${pct(10_800 - 1860)}%`));
    const bars = [...body.matchAll(/<div class="bars"[^>]*>(.*?)<\/div>/gs)].map((m) => [...m[1].matchAll(/<span /g)].length);
    assert.equal(bars, [90, 90], "90 daily bars per check");
    // checks made today (T0): their uptime counts from then, and the 89 days before show as before they existed
    assert.equal(body.match(/uptime since <time datetime="2026-01-15T12:00:00\+00:00">2026-01-15 12:00 UTC<\/time>/g)?.length, 2);
    assert.not.match(body, "uptime over 90 days");
    const before = [...body.matchAll(/<div class="bars"[^>]*>(.*?)<\/div>/gs)].map((m) => [...m[1].matchAll(/class="before"/g)].length);
    assert.equal(before, [89, 89], "each check's days before it was made");
    assert.match(body, `<meta http-equiv="refresh" content="60">`, "a wall screen loads the page again by itself");
    assert.ok(body.includes("ongoing"));
    const project = api.project;
    for (const text of [await (await fetch(`${url}/status/acme.json`)).text(), body]) {
      for (const secret of [
        a,
        b,
        project.id,
        project.apiKey,
        project.apiKeyReadonly,
        project.pingKey,
        project.badgeKey,
        "/ping/",
        "SECRET-BODY-TEXT",
      ]) {
        assert.not.ok(text.includes(secret), `the page shows ${secret}`);
      }
    }
    const zipped = await fetch(`${url}/status/acme`, { headers: { "accept-encoding": "gzip" } });
    assert.is(zipped.headers.get("content-encoding"), "gzip");
    assert.is(await zipped.text(), body, "the same page, gzipped");
    assert.is((await fetch(`${url}/status/acme`, { headers: { "accept-encoding": "identity" } })).headers.get("content-encoding"), null);
    assert.is((await fetch(`${url}/status/nope`)).status, 404);
    assert.equal(await (await fetch(`${url}/status/nope.json`)).json(), { error: "status page not found" });
  }));

test("a page's description: set by an edit (shown as text, line breaks kept), kept by an edit that names none, taken away by an empty one", () =>
  withServedApi(async (api, url) => {
    const { a, b } = await twoChecks(api);
    const path = `/admin/v1/projects/${api.project.id}/status-pages`;
    assert.is((await send(url, "POST", path, { slug: "desc", title: "Desc", checks: [a] })).status, 201);
    const put = (body: Json) => send(url, "PUT", `${path}/desc`, body);
    const shown = async () => /<p class="description">([\s\S]*?)<\/p>/.exec(await (await fetch(`${url}/status/desc`)).text())?.[1] ?? null;
    const set = await put({ title: "Desc", checks: [a, b], description: "Planned work on Sunday\r\n<b>mail</b> may lag" });
    assert.is(set.status, 200, set.text);
    assert.is((set.json as Json).description, "Planned work on Sunday\n<b>mail</b> may lag");
    assert.is(await shown(), "Planned work on Sunday\n&lt;b&gt;mail&lt;/b&gt; may lag");
    assert.is((await put({ title: "Renamed", checks: [b] })).status, 200);
    assert.is(await shown(), "Planned work on Sunday\n&lt;b&gt;mail&lt;/b&gt; may lag", "kept");
    assert.is((await put({ title: "Renamed", checks: [b], description: "x".repeat(2001) })).status, 400);
    const cleared = await put({ title: "Renamed", checks: [b], description: "" });
    assert.is((cleared.json as Json).description, undefined);
    assert.is(await shown(), null);
  }));

test("the overall line: operational while none is down or late (new and paused count as fine), then late, partial and major outage", () =>
  withServedApi(async (api, url) => {
    const make = async (name: string) => String((await api.create({ name, timeout: 3600, grace: 600 })).uuid);
    const [a, b, fresh, paused] = [await make("a"), await make("b"), await make("fresh"), await make("paused")];
    await api.ping(a);
    await api.ping(b);
    assert.is((await api.call("POST", `${api.root}/checks/${paused}/pause`, { key: api.project.apiKey })).status, 200);
    const path = `/admin/v1/projects/${api.project.id}/status-pages`;
    assert.is((await send(url, "POST", path, { slug: "all", title: "All", checks: [a, b, fresh, paused] })).status, 201);
    assert.is((await send(url, "POST", path, { slug: "one", title: "One", checks: [b] })).status, 201);
    const seen = async (slug: string) => {
      const doc = (await (await fetch(`${url}/status/${slug}.json`)).json()) as Json;
      const line = /<p class="overall ([a-z_]+)" role="status">([^<]*)<\/p>/.exec(await (await fetch(`${url}/status/${slug}`)).text());
      return { json: doc.overall, line: line === null ? null : [line[1], line[2]] };
    };
    assert.equal(await seen("all"), {
      json: { status: "operational", down: 0, late: 0, total: 4 },
      line: ["operational", "All systems operational"],
    });
    await advance(url, 3660); // a and b in grace
    assert.equal(await seen("all"), {
      json: { status: "late", down: 0, late: 2, total: 4 },
      line: ["late", "Delayed: 2 of 4 checks late (not down yet)"],
    });
    await api.ping(a);
    await advance(url, 600); // b down
    assert.equal(await seen("all"), {
      json: { status: "partial_outage", down: 1, late: 0, total: 4 },
      line: ["partial_outage", "Partial outage: 1 of 4 checks down"],
    });
    assert.equal(await seen("one"), {
      json: { status: "major_outage", down: 1, late: 0, total: 1 },
      line: ["major_outage", "Major outage: the check is down"],
    });
  }));

test("groups: headings over chosen checks (the others first), in JSON as each check's group; kept by an edit naming none, pruned to the page's checks, taken away by []; bad groups refused", () =>
  withServedApi(async (api, url) => {
    const make = async (name: string) => String((await api.create({ name, timeout: 3600, grace: 60 })).uuid);
    const [web, api1, db, solo] = [await make("web"), await make("api"), await make("db"), await make("solo")];
    const path = `/admin/v1/projects/${api.project.id}/status-pages`;
    const groups = [
      { name: "Storage", checks: [db] },
      { name: "Front <end>", checks: [api1, web] },
    ];
    const made = await send(url, "POST", path, { slug: "grp", title: "G", checks: [web, api1, db, solo], groups });
    assert.is(made.status, 201, made.text);
    assert.equal((made.json as Json).groups, groups);
    const shown = async () => {
      const body = await (await fetch(`${url}/status/grp`)).text();
      const order = [...body.matchAll(/<h2 class="group">([^<]*)<\/h2>|<span class="name">([^<]*)<\/span>/g)].map((m) => m[1] ?? m[2]);
      const doc = (await (await fetch(`${url}/status/grp.json`)).json()) as { checks: Json[] };
      return { order, json: doc.checks.map((c) => [c.name, c.group ?? null]) };
    };
    assert.equal(await shown(), {
      order: ["solo", "Storage", "db", "Front &lt;end&gt;", "api", "web"],
      json: [
        ["solo", null],
        ["db", "Storage"],
        ["api", "Front <end>"],
        ["web", "Front <end>"],
      ],
    });
    const put = (body: Json) => send(url, "PUT", `${path}/grp`, { title: "G", ...body });
    assert.equal((await put({ checks: [web, db, solo] })).json, {
      ...(made.json as Json),
      checks: [web, db, solo],
      groups: [
        { name: "Storage", checks: [db] },
        { name: "Front <end>", checks: [web] },
      ],
    });
    await advance(url, 5);
    assert.equal((await shown()).order, ["solo", "Storage", "db", "Front &lt;end&gt;", "web"], "kept, without the check taken off");
    assert.is(((await put({ checks: [solo, db], groups: [] })).json as Json).groups, undefined);
    await advance(url, 5);
    assert.equal((await shown()).order, ["solo", "db"], "no headings once groups are taken away");

    const good = { slug: "g2", title: "G", checks: [web, db] };
    const bad: unknown[] = [
      "Storage",
      [{ name: "S", checks: [solo] }], // not one of the page's checks
      [{ name: "S", checks: ["00000000-0000-4000-8000-000000000000"] }],
      [{ name: "", checks: [web] }],
      [{ name: "x".repeat(101), checks: [web] }],
      [{ name: "S", checks: [] }],
      [{ name: "S", checks: [web, web] }],
      [
        { name: "S", checks: [web] },
        { name: "T", checks: [web] },
      ],
      [
        { name: "S", checks: [web] },
        { name: "S", checks: [db] },
      ],
      [{ name: "S", checks: [web], colour: "red" }],
      [null],
      Array.from({ length: 21 }, (_, i) => ({ name: `g${i}`, checks: [i === 0 ? web : db] })),
    ];
    for (const groups of bad) {
      const answer = await send(url, "POST", path, { ...good, groups });
      assert.is(answer.status, 400, `${JSON.stringify(groups)}: ${answer.text}`);
      assert.match(String((answer.json as Json).error), "groups");
      if (Array.isArray(groups) && groups.length === 21) assert.match(String((answer.json as Json).error), "more than 20 groups");
    }
    assert.is((await send(url, "GET", `${path}`)).text.includes('"g2"'), false, "nothing added");
  }));

test('a logo: an https address shown as an image, its origin alone allowed by the page\'s CSP; kept by an edit naming none, taken away by ""; others refused', () =>
  withServedApi(async (api, url) => {
    const { a } = await twoChecks(api);
    const path = `/admin/v1/projects/${api.project.id}/status-pages`;
    const logo = "https://cdn.example.com:8443/brand/logo.png?v=2&s=1";
    const made = await send(url, "POST", path, { slug: "logo", title: "L", checks: [a], logo });
    assert.is(made.status, 201, made.text);
    assert.is((made.json as Json).logo, logo);
    const shown = async () => {
      const res = await fetch(`${url}/status/logo`);
      const img = /<img class="logo" src="([^"]*)"[^>]*>/.exec(await res.text());
      const json = (await (await fetch(`${url}/status/logo.json`)).json()) as Json;
      return { img: img?.[1] ?? null, csp: res.headers.get("content-security-policy") ?? "", json: json.logo };
    };
    const first = await shown();
    assert.equal([first.img, first.json], [logo.replace("&", "&amp;"), logo]);
    assert.match(first.csp, /(^|; )img-src https:\/\/cdn\.example\.com:8443; /);
    assert.is(first.csp.match(/img-src/g)?.length, 1);
    assert.is((await send(url, "PUT", `${path}/logo`, { title: "L2", checks: [a] })).status, 200);
    await advance(url, 5);
    assert.is((await shown()).img, first.img, "kept by an edit that names none");
    assert.is(((await send(url, "PUT", `${path}/logo`, { title: "L2", checks: [a], logo: "" })).json as Json).logo, undefined);
    await advance(url, 5);
    const gone = await shown();
    assert.equal([gone.img, gone.json], [null, undefined]);
    assert.not.match(gone.csp, "img-src", "no image allowed from anywhere without a logo");

    for (const bad of [
      "http://cdn.example.com/logo.png",
      "javascript:alert(1)",
      "data:image/png;base64,iVBORw0KGgo=",
      "https://user:secret@cdn.example.com/logo.png",
      "//cdn.example.com/logo.png",
      "logo.png",
      `https://cdn.example.com/${"x".repeat(500)}.png`,
      5,
      { url: logo },
    ]) {
      const answer = await send(url, "POST", path, { slug: "bad-logo", title: "B", checks: [a], logo: bad });
      assert.is(answer.status, 400, `${JSON.stringify(bad)}: ${answer.text}`);
      assert.match(String((answer.json as Json).error), "logo");
    }
    assert.is((await fetch(`${url}/status/bad-logo.json`)).status, 404);
  }));

test("public page: a view is kept for 5 s, then worked out again", () =>
  withServedApi(async (api, url) => {
    const { a } = await twoChecks(api);
    await api.ping(a);
    assert.is(
      (await send(url, "POST", `/admin/v1/projects/${api.project.id}/status-pages`, { slug: "kept", title: "K", checks: [a] })).status,
      201,
    );
    const statusOf = async () => ((await (await fetch(`${url}/status/kept.json`)).json()) as { checks: Json[] }).checks[0].status;
    assert.is(await statusOf(), "up");
    assert.is((await fetch(`${url}/status/kept`)).headers.get("cache-control"), "public, max-age=5");
    await api.ping(a, { signal: "fail" });
    assert.is(await statusOf(), "up", "the view of a moment ago is served");
    await advance(url, 4);
    assert.is(await statusOf(), "up", "still within 5 s");
    await advance(url, 1);
    assert.is(await statusOf(), "down", "worked out again after 5 s");
  }));

test.run();
