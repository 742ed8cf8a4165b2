// Badges: rendering and aggregation (pure), URL parsing and signatures, then the routes through
// app.request() on an in-process pool.
import { pingThrough } from "../helpers.ts";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { H3 } from "h3";
import { createHmac } from "node:crypto";
import type { PingCommand } from "../../host/pool-api.ts";
import type { Check, Project, Status } from "../../engine/model.ts";
import { DAY, MINUTE } from "../../engine/model.ts";
import { badgeSignature } from "../../http/badge-urls.ts";
import type { BadgeStates, BadgeStatus } from "../../http/badges.ts";
import { BADGE_COLORS, WIDTHS, badgeJson, badgeShields, badgeSvg, textWidth } from "../../http/badges.ts";
import { badgeRoutes, parseCheckBadge, parseProjectBadge } from "../../http/routes/badges.ts";
import { signatureMatches, statesOfSignature } from "../../http/badge-urls.ts";
import type { Routes } from "./harness.ts";
import { BADGE_SECRET, withApi, withRoutes } from "./harness.ts";

// ---- rendering -----------------------------------------------------------------------------------

test("the width table carries the reference's per-character widths", () => {
  const sample = { i: 3, f: 4, t: 5, c: 6, a: 7, "1": 6, "7": 7, A: 8, G: 9, m: 10, M: 10, W: 11, "-": 4, _: 6, J: 4, w: 9 };
  for (const [char, width] of Object.entries(sample)) assert.is(WIDTHS[char], width, char);
  assert.is(Object.keys(WIDTHS).length, 26 + 26 + 10 + 2);
});

test("text width sums the table per code point, 7 px for anything else", () => {
  assert.is(textWidth("up"), 14);
  assert.is(textWidth("down"), 7 + 7 + 9 + 7);
  assert.is(textWidth("late"), 3 + 7 + 5 + 6);
  assert.is(textWidth("hcd"), 20);
  assert.is(textWidth("a b"), 21); // space: unknown, 7
  assert.is(textWidth("😀"), 7); // one code point, two UTF-16 units
  assert.is(textWidth(""), 0);
});

test("the SVG badge is 20 px high, each box 10 px wider than its text, centres printed as Python floats", () => {
  const svg = badgeSvg("hcd", "up"); // label 20 + 10, status 14 + 10
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="54" height="20">'));
  assert.ok(svg.includes('<rect width="30" height="20" fill="#555"/>'));
  assert.ok(svg.includes('<rect x="30" width="24" height="20" fill="#4c1"/>'));
  assert.ok(svg.includes('<text x="15.0" y="15" fill="#010101" fill-opacity=".3">hcd</text>'));
  assert.ok(svg.includes('<text x="15.0" y="14">hcd</text>'));
  assert.ok(svg.includes('<text x="42.0" y="15" fill="#010101" fill-opacity=".3">up</text>'));
  assert.ok(svg.includes('<text x="42.0" y="14">up</text>'));
  const odd = badgeSvg("i", "down"); // label 13, status 40
  assert.ok(odd.includes('width="53" height="20">'));
  assert.ok(odd.includes('<text x="6.5" y="14">i</text>'));
  assert.ok(odd.includes('<text x="33.0" y="14">down</text>'));
});

const colours: [BadgeStatus, string][] = [
  ["up", "#4c1"],
  ["late", "#fe7d37"],
  ["down", "#e05d44"],
];
for (const [status, colour] of colours) {
  test(`the ${status} SVG badge is well-formed and coloured ${colour}`, () => {
    const svg = badgeSvg("db-backup", status);
    assertWellFormed(svg);
    assert.is(BADGE_COLORS[status], colour);
    assert.ok(svg.includes(`fill="${colour}"/>`));
    assert.is(svg.split(">" + status + "</text>").length - 1, 2, "status drawn twice (shadow and text)");
  });
}

test("labels are escaped in the SVG and the document stays well-formed", () => {
  const svg = badgeSvg(`<a href="x">&'`, "down");
  assertWellFormed(svg);
  assert.ok(svg.includes("&lt;a href=&quot;x&quot;&gt;&amp;&#x27;</text>"));
  assert.not.ok(svg.includes("<a href"));
});

const aggregations: [name: string, statuses: (Status | "grace")[], states: BadgeStates, want: BadgeStatus][] = [
  ["no checks are up", [], 3, "up"],
  ["new, paused and up count as up", ["new", "paused", "up"], 3, "up"],
  ["grace is late with 3 states", ["up", "grace"], 3, "late"],
  ["grace is up with 2 states", ["up", "grace"], 2, "up"],
  ["one down beats grace (3 states)", ["grace", "down", "up"], 3, "down"],
  ["one down beats everything (2 states)", ["up", "new", "down"], 2, "down"],
];
for (const [name, statuses, states, want] of aggregations) {
  test(`badge status: ${name}`, () => assert.is(badgeJson(statuses, states).status, want));
}

test("the JSON badge counts every check, its grace and down ones, in either state mode", () => {
  const statuses: (Status | "grace")[] = ["up", "grace", "grace", "down", "new", "paused"];
  assert.equal(badgeJson(statuses, 3), { status: "down", total: 6, grace: 2, down: 1 });
  assert.equal(badgeJson(["grace"], 2), { status: "up", total: 1, grace: 1, down: 0 });
  assert.equal(badgeJson(["grace"], 3), { status: "late", total: 1, grace: 1, down: 0 });
});

test("the shields document names the status and its shields colour", () => {
  assert.equal(badgeShields("db", "up"), { schemaVersion: 1, label: "db", message: "up", color: "success" });
  assert.equal(badgeShields("db", "late"), { schemaVersion: 1, label: "db", message: "late", color: "important" });
  assert.equal(badgeShields("db", "down"), { schemaVersion: 1, label: "db", message: "down", color: "critical" });
});

// ---- URLs and signatures ---------------------------------------------------------------------------

test("a badge signature is 8 URL-safe characters, stable, and depends on the secret, key and tag", () => {
  const sig = badgeSignature("s", "key-1", "db");
  assert.match(sig, /^[-A-Za-z0-9_]{8}$/);
  assert.is(badgeSignature("s", "key-1", "db"), sig);
  assert.is.not(badgeSignature("s", "key-2", "db"), sig);
  assert.is.not(badgeSignature("s", "key-1", "dc"), sig);
  assert.is.not(badgeSignature("t", "key-1", "db"), sig);
});

test("only the first 8 characters of a signature are compared; -2 on a 10-character one selects 2 states", () => {
  const sig = badgeSignature("s", "k", "db");
  assert.ok(signatureMatches("s", "k", "db", sig));
  assert.ok(signatureMatches("s", "k", "db", `${sig}-2`));
  assert.ok(signatureMatches("s", "k", "db", `${sig}extra`));
  assert.not.ok(signatureMatches("s", "k", "db", sig.slice(0, 7)));
  assert.not.ok(signatureMatches("s", "k", "dc", sig));
  assert.not.ok(signatureMatches("t", "k", "db", sig));
  assert.is(statesOfSignature(`${sig}-2`), 2);
  assert.is(statesOfSignature(sig), 3);
  assert.is(statesOfSignature(`${sig}x-2`), 3);
});

test("project badge URLs: tag decoded twice, format after the last dot, * form without a tag", () => {
  assert.equal(parseProjectBadge("key", "abcdefgh-2", "db.svg"), { badgeKey: "key", signature: "abcdefgh-2", tag: "db", format: "svg" });
  assert.equal(parseProjectBadge("key", "abcdefgh", "db%2540dc1.json"), {
    badgeKey: "key",
    signature: "abcdefgh",
    tag: "db@dc1",
    format: "json",
  });
  assert.equal(parseProjectBadge("key", "abcdefgh", "db%40dc1.json")?.tag, "db@dc1");
  assert.equal(parseProjectBadge("key", "abcdefgh", "v1.2.shields")?.tag, "v1.2");
  assert.equal(parseProjectBadge("key", "abcdefgh", "100%25.svg")?.tag, "100%");
  assert.equal(parseProjectBadge("key", null, "abcdefgh-2.shields"), {
    badgeKey: "key",
    signature: "abcdefgh-2",
    tag: "*",
    format: "shields",
  });
  assert.is(parseProjectBadge("key", null, "abcdefgh"), null);
  assert.is(parseProjectBadge("key", "abc", ".svg"), null);
  assert.is(parseProjectBadge("key", "ab.c", "db.svg"), null);
  assert.is(parseProjectBadge("key", null, "ab.c.svg"), null);
});

test("check badge URLs: states 3 means with late, any other number 2; non-numbers match nothing", () => {
  assert.equal(parseCheckBadge("3", "k-1.svg"), { states: 3, badgeKey: "k-1", format: "svg" });
  assert.equal(parseCheckBadge("2", "k-1.json"), { states: 2, badgeKey: "k-1", format: "json" });
  assert.equal(parseCheckBadge("7", "k-1.json")?.states, 2);
  assert.is(parseCheckBadge("x", "k-1.svg"), null);
  assert.is(parseCheckBadge("3", "k-1"), null);
});

// ---- routes on an in-process pool ------------------------------------------------------------------

const T0 = Date.UTC(2026, 0, 1);

type Harness = Routes & {
  /** Creates a check with a timeout of 1 minute (grace 1 hour) and moves it to `state` at T0. */
  newCheck(spec: { name?: string; tags?: string }, state: "new" | "up" | "down" | "paused"): Promise<Check>;
};

async function withHarness(body: (h: Harness) => Promise<void>): Promise<void> {
  await withRoutes(
    badgeRoutes,
    async (routes) => {
      const { pool, project } = routes;
      const newCheck = async (spec: { name?: string; tags?: string }, state: "new" | "up" | "down" | "paused") => {
        const created = await pool.createCheck(project.id, { ...spec, timeoutMs: MINUTE }, [], T0);
        if (!created.ok) throw new Error(`createCheck failed: ${JSON.stringify(created.failure)}`);
        const uuid = created.value.check.uuid;
        if (state === "up" || state === "down") {
          const pinged = await pingThrough(pool, pingCommand(uuid, state === "up" ? "success" : "fail"));
          if (!pinged.ok) throw new Error("ping failed");
        }
        if (state === "paused") await pool.pauseCheck(project.id, uuid, T0);
        const got = await pool.getCheck(project.id, { uuid });
        if (!got.ok) throw new Error("getCheck failed");
        return got.value;
      };
      await body({ ...routes, newCheck });
    },
    { startAt: T0 },
  );
}

function pingCommand(uuid: string, signal: "success" | "fail"): PingCommand {
  return {
    target: { uuid },
    signal,
    exitStatus: null,
    method: "GET",
    scheme: "http",
    remoteAddr: "",
    ua: "",
    rid: null,
    body: null,
    at: T0,
  };
}

/** Returns the URL of a project badge the way the API lists it (tag quoted, then encoded again). */
function badgeUrl(project: Project, tag: string, opts: { format: string; states: BadgeStates }): string {
  const sig = badgeSignature(BADGE_SECRET, project.badgeKey, tag) + (opts.states === 2 ? "-2" : "");
  if (tag === "*") return `/badge/${project.badgeKey}/${sig}.${opts.format}`;
  return `/badge/${project.badgeKey}/${sig}/${encodeURIComponent(encodeURIComponent(tag))}.${opts.format}`;
}

async function get(app: H3, path: string, method = "GET"): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await app.request(`http://localhost${path}`, { method });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

async function json(app: H3, path: string): Promise<unknown> {
  const answer = await get(app, path);
  assert.is(answer.status, 200, path);
  return JSON.parse(answer.text);
}

test("a tag badge counts the checks carrying that exact tag; 3 states show grace as late, 2 as up", () =>
  withHarness(async ({ app, clock, project, newCheck }) => {
    await newCheck({ tags: "db prod" }, "up");
    await newCheck({ tags: "db" }, "new");
    await newCheck({ tags: "dbx" }, "down"); // "db" doesn't match "dbx"
    clock.advance(2 * MINUTE); // the up check is now in its grace period
    assert.equal(await json(app, badgeUrl(project, "db", { format: "json", states: 3 })), { status: "late", total: 2, grace: 1, down: 0 });
    assert.equal(await json(app, badgeUrl(project, "db", { format: "json", states: 2 })), { status: "up", total: 2, grace: 1, down: 0 });
    assert.equal(await json(app, badgeUrl(project, "db", { format: "shields", states: 3 })), {
      schemaVersion: 1,
      label: "db",
      message: "late",
      color: "important",
    });
    assert.equal(await json(app, badgeUrl(project, "prod", { format: "shields", states: 2 })), {
      schemaVersion: 1,
      label: "prod",
      message: "up",
      color: "success",
    });
    assert.equal(await json(app, badgeUrl(project, "nothing", { format: "json", states: 3 })), {
      status: "up",
      total: 0,
      grace: 0,
      down: 0,
    });
  }));

test("the * badge covers every check, labelled hcd; one down check makes it down", () =>
  withHarness(async ({ app, clock, project, newCheck }) => {
    await newCheck({ tags: "db" }, "up");
    await newCheck({}, "paused");
    await newCheck({ tags: "web" }, "down");
    assert.equal(await json(app, badgeUrl(project, "*", { format: "json", states: 3 })), { status: "down", total: 3, grace: 0, down: 1 });
    assert.equal(await json(app, badgeUrl(project, "*", { format: "shields", states: 2 })), {
      schemaVersion: 1,
      label: "hcd",
      message: "down",
      color: "critical",
    });
    clock.advance(2 * DAY); // past timeout and grace: the up check is down as well
    assert.equal(await json(app, badgeUrl(project, "db", { format: "json", states: 2 })), { status: "down", total: 1, grace: 0, down: 1 });
  }));

test("the SVG badge is served as image/svg+xml with CORS and never-cache headers", () =>
  withHarness(async ({ app, project, newCheck }) => {
    await newCheck({ tags: "db" }, "up");
    const answer = await get(app, badgeUrl(project, "db", { format: "svg", states: 2 }));
    assert.is(answer.status, 200);
    assert.is(answer.headers.get("content-type"), "image/svg+xml");
    assert.is(answer.headers.get("access-control-allow-origin"), "*");
    assert.is(answer.headers.get("cache-control"), "max-age=0, no-cache, no-store, must-revalidate, private");
    assert.is(answer.text, badgeSvg("db", "up"));
    assertWellFormed(answer.text);
    assert.is((await get(app, badgeUrl(project, "*", { format: "svg", states: 3 }))).text, badgeSvg("hcd", "up"));
  }));

test("a tag with characters that need quoting is found through its double-encoded URL", () =>
  withHarness(async ({ app, project, newCheck }) => {
    await newCheck({ tags: "db@dc1" }, "down");
    const url = badgeUrl(project, "db@dc1", { format: "json", states: 3 });
    assert.ok(url.includes("/db%2540dc1.json"));
    assert.equal(await json(app, url), { status: "down", total: 1, grace: 0, down: 1 });
  }));

test("a wrong signature, an unknown key or format gives 404", () =>
  withHarness(async ({ app, project, newCheck }) => {
    await newCheck({ tags: "db" }, "up");
    const good = badgeUrl(project, "db", { format: "svg", states: 3 });
    const sig = badgeSignature(BADGE_SECRET, project.badgeKey, "db");
    const bad = [
      `/badge/${project.badgeKey}/AAAAAAAA/db.svg`,
      `/badge/${project.badgeKey}/${badgeSignature(BADGE_SECRET, project.badgeKey, "web")}/db.svg`, // another tag's signature
      `/badge/${project.badgeKey}/${sig}/db.png`,
      `/badge/${project.badgeKey}/${sig}.svg`, // the tag's signature is not the * one
      `/badge/nokey/${sig}/db.svg`,
      `/badge/${project.badgeKey}/${sig}/db`,
      `/badge/${project.badgeKey}/${badgeSignature(BADGE_SECRET, project.badgeKey, "*")}.txt`,
    ];
    assert.is((await get(app, good)).status, 200);
    for (const path of bad) {
      const answer = await get(app, path);
      assert.equal([path, answer.status, answer.headers.get("access-control-allow-origin")], [path, 404, "*"]);
    }
  }));

test("OPTIONS answers 204 with CORS; HEAD is a GET without a body; other methods 405", () =>
  withHarness(async ({ app, project, newCheck }) => {
    const check = await newCheck({ tags: "db" }, "up");
    for (const path of [badgeUrl(project, "db", { format: "svg", states: 3 }), `/b/2/${check.badgeKey}.svg`]) {
      const options = await get(app, path, "OPTIONS");
      assert.equal([options.status, options.text], [204, ""]);
      assert.is(options.headers.get("access-control-allow-origin"), "*");
      assert.is(options.headers.get("access-control-allow-methods"), "GET, HEAD, OPTIONS");
      const head = await get(app, path, "HEAD");
      assert.equal([head.status, head.text, head.headers.get("content-type")], [200, "", "image/svg+xml"]);
      for (const method of ["POST", "PUT", "DELETE"]) {
        const answer = await get(app, path, method);
        assert.equal([method, answer.status, answer.headers.get("allow")], [method, 405, "GET, HEAD, OPTIONS"]);
      }
    }
  }));

test("a check badge shows one check: label = name (or uuid), grace late only with 3 states", () =>
  withHarness(async ({ app, clock, newCheck }) => {
    const named = await newCheck({ name: "Nightly backup" }, "up");
    const unnamed = await newCheck({}, "down");
    clock.advance(2 * MINUTE);
    assert.equal(await json(app, `/b/3/${named.badgeKey}.json`), { status: "late", total: 1, grace: 1, down: 0 });
    assert.equal(await json(app, `/b/2/${named.badgeKey}.json`), { status: "up", total: 1, grace: 1, down: 0 });
    assert.equal(await json(app, `/b/3/${named.badgeKey}.shields`), {
      schemaVersion: 1,
      label: "Nightly backup",
      message: "late",
      color: "important",
    });
    assert.equal(await json(app, `/b/2/${unnamed.badgeKey}.shields`), {
      schemaVersion: 1,
      label: unnamed.uuid,
      message: "down",
      color: "critical",
    });
    const svg = await get(app, `/b/2/${named.badgeKey}.svg`);
    assert.equal([svg.status, svg.text], [200, badgeSvg("Nightly backup", "up")]);
    assert.is((await get(app, `/b/2/${named.uuid}.svg`)).status, 404); // the uuid is not the badge key
    assert.is((await get(app, `/b/2/${named.badgeKey}.gif`)).status, 404);
    assert.is((await get(app, `/b/x/${named.badgeKey}.svg`)).status, 404);
  }));

test("a badge URL can't be forged from a published one: the old scheme (HMAC keyed by the URL's own badge key) gets 404", () =>
  withApi(async (api) => {
    await api.create({ name: "a", tags: "db" });
    await api.create({ name: "b", tags: "web" });
    const listed = (await api.call("GET", "/api/v3/badges/")).json as { badges: Record<string, Record<string, string>> };
    const published = new URL(listed.badges.db.json3); // e.g. in a public README
    const genuine = await api.app.request(published.pathname);
    assert.is(genuine.status, 200, published.pathname);
    const badgeKey = published.pathname.split("/")[2];
    const oldWay = (tag: string) => createHmac("sha256", badgeKey).update(tag).digest("base64url").slice(0, 8);
    const forged = [
      `/badge/${badgeKey}/${oldWay("web")}/web.json`, // another tag
      `/badge/${badgeKey}/${oldWay("*")}.json`, // every check of the project
      `/badge/${badgeKey}/${oldWay("*")}-2.svg`,
      `/badge/${badgeKey}/${oldWay("db")}/db.json`, // even the published tag
      published.pathname.replace("/db.json", "/web.json"), // a genuine signature on another tag
    ];
    for (const path of forged) assert.equal([path, (await api.app.request(path)).status], [path, 404]);
    for (const url of [listed.badges.web.json3, listed.badges["*"].svg]) {
      assert.is((await api.app.request(new URL(url).pathname)).status, 200, "the listed URLs of the other badges work");
    }
  }));

/** Fails unless every tag in `xml` is closed in order (a small check, enough for the badge's shape). */
function assertWellFormed(xml: string): void {
  const stack: string[] = [];
  const tags = xml.match(/<[^>]*>/g) ?? [];
  for (const tag of tags) {
    assert.not.ok(/[<>]/.test(tag.slice(1, -1)), `stray bracket in ${tag}`);
    const name = /^<\/?([A-Za-z][\w:-]*)/.exec(tag)?.[1];
    assert.ok(name, `tag name in ${tag}`);
    if (tag.startsWith("</")) assert.is(stack.pop(), name, `closing ${tag}`);
    else if (!tag.endsWith("/>")) stack.push(name ?? "");
  }
  assert.equal(stack, [], "every element closed");
  const text = xml.replace(/<[^>]*>/g, "");
  assert.not.ok(/&(?!amp;|lt;|gt;|quot;|#x27;)/.test(text), "only known entities");
  assert.ok(xml.trimStart().startsWith("<svg"), "root element is svg");
}

test.run();
