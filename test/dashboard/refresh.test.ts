// The checks table's auto-refresh with ETags (http/dashboard/rows-etag.ts), through the app on a real
// in-process pool and a virtual clock: 304 while nothing shown would change; the rows again after a ping,
// and after a status word changed by time alone (no flip, no command). A last ping's "... ago" is worded
// by the page's script from the instant the row carries, so time alone never ends the 304s for it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { Api } from "../http/harness.ts";
import { withApi } from "../http/harness.ts";

/** Signs in with the project's read-write key; returns a GET of the rows (sorted by name, `extra` added to the query) with or without If-None-Match. */
async function rowsReader(
  api: Api,
): Promise<(etag?: string, extra?: string) => Promise<{ status: number; etag: string | null; now: number; text: string }>> {
  const signIn = await api.app.request("/signin", { method: "POST", body: new URLSearchParams({ key: api.project.apiKey }) });
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
  assert.match(cookie, /^hcd_session=./);
  return async (etag, extra = "") => {
    const headers: Record<string, string> = { cookie };
    if (etag !== undefined) headers["if-none-match"] = etag;
    const res = await api.app.request(`/projects/${api.project.id}/checks/rows?sort=name${extra}`, { headers });
    return { status: res.status, etag: res.headers.get("etag"), now: Number(res.headers.get("x-hcd-now")), text: await res.text() };
  };
}

/** The instants of the rows' last pings, as their <time class="ago"> carry them. */
const lastPingsIn = (text: string) => [...text.matchAll(/<time class="ago" datetime="([^"]+)"/g)].map((m) => m[1]);
/** The ISO instant of a check's last ping, from the API. */
async function lastPingOf(api: Api, uuid: string): Promise<string> {
  const check = (await api.call("GET", `/api/v3/checks/${uuid}`)).json as { last_ping: string };
  return new Date(check.last_ping).toISOString();
}

const wordsIn = (text: string) => [...text.matchAll(/<span class="word">([a-z]+)<\/span>/g)].map((m) => m[1]);

test("no change: 304 with no body; a ping: the rows again, showing it; then 304 again", () =>
  withApi(async (api) => {
    // a check pinged a day ago: its "1 day ago" and its "up" hold for a while
    const made = await api.create({ name: "nightly", timeout: (2 * DAY) / 1000, grace: HOUR / 1000 });
    await api.ping(String(made.uuid));
    await api.admin("POST", "/admin/v1/clock", { advance: DAY / 1000 });
    const rows = await rowsReader(api);
    const first = await rows();
    assert.is(first.status, 200);
    assert.ok(first.etag !== null, "the rows carry an ETag");
    assert.ok(
      first.text.includes(`data-etag="${first.etag.replaceAll('"', "&quot;")}"`),
      "and say it in the fragment, for the page's script",
    );
    const pingedAt = await lastPingOf(api, String(made.uuid));
    assert.equal(lastPingsIn(first.text), [pingedAt], "the row carries the ping's instant");
    assert.is(first.now, api.clock.now(), "and the answer the server's now, for the page's script to word it");

    await api.admin("POST", "/admin/v1/clock", { advance: 60 }); // time moves, nothing shown changes with it
    const unchanged = await rows(first.etag);
    assert.equal([unchanged.status, unchanged.text, unchanged.etag], [304, "", first.etag]);

    await api.ping(String(made.uuid));
    const pinged = await rows(first.etag);
    assert.is(pinged.status, 200, "a ping changes the project's version");
    assert.equal(lastPingsIn(pinged.text), [new Date(api.clock.now()).toISOString()], "and the rows show it");
    assert.is.not(pinged.etag, first.etag);
    assert.is((await rows(pinged.etag ?? "")).status, 304);
    assert.is((await rows(`W/"other"`)).status, 200, "an ETag of something else is a full answer");
  }));

test("a status word that changes by time alone (up → grace, no flip) ends the 304s", () =>
  withApi(async (api) => {
    // expected 1 day 1 hour after its ping; the relative time reads "1 day ago" from 1 day to 2 days
    const made = await api.create({ name: "late one", timeout: (DAY + HOUR) / 1000, grace: HOUR / 1000 });
    await api.ping(String(made.uuid));
    await api.admin("POST", "/admin/v1/clock", { advance: (DAY + 30 * MINUTE) / 1000 });
    const rows = await rowsReader(api);
    const first = await rows();
    assert.equal([first.status, wordsIn(first.text)], [200, ["up"]]);
    await api.admin("POST", "/admin/v1/clock", { advance: 20 * 60 }); // 1 day 50 minutes: still up, still "1 day ago"
    assert.is((await rows(first.etag ?? "")).status, 304);
    await api.admin("POST", "/admin/v1/clock", { advance: 20 * 60 }); // 1 day 1 hour 10 minutes: late, by the clock alone
    const flips = await api.call("GET", `/api/v3/checks/${String(made.uuid)}/flips/`);
    assert.equal((flips.json as unknown[]).length, 1, "only the ping's new → up: grace is no flip");
    const late = await rows(first.etag ?? "");
    assert.equal([late.status, wordsIn(late.text)], [200, ["grace"]]);
  }));

test("minutes passing after a ping keep the 304s (its \"... ago\" is the page's to word), and a 304 says the server's now", () =>
  withApi(async (api) => {
    const made = await api.create({ name: "hourly", timeout: 3600, grace: 600 });
    await api.ping(String(made.uuid));
    await api.admin("POST", "/admin/v1/clock", { advance: 5 * 60 }); // "5 minutes ago"
    const rows = await rowsReader(api);
    const first = await rows();
    assert.is(first.status, 200);
    await api.admin("POST", "/admin/v1/clock", { advance: 10 * 60 }); // "15 minutes ago", still up
    const later = await rows(first.etag ?? "");
    assert.equal([later.status, later.now - first.now], [304, 10 * MINUTE]);
  }));

const rowsOnly = (text: string) => text.replace(/^<tbody[^>]*>/, "");

/** The rows of a tbody by the check each names (data-ref). */
const rowsByRef = (text: string) =>
  new Map([...text.matchAll(/<tr class="[^"]*" data-ref="([^"]+)">[\s\S]*?<\/tr>/g)].map((m) => [m[1], m[0]]));
/** What the page's script makes of a refresh: each placeholder replaced by the row shown before. */
const withShownRows = (text: string, shown: string) => {
  const before = rowsByRef(shown);
  return text.replace(/<tr data-keep="([^"]+)"><\/tr>/g, (_, ref: string) => before.get(ref) ?? `MISSING ${ref}`);
};

test("a refresh sends only the changed rows to the client that holds the last render; put together, they are byte for byte a fresh render", () =>
  withApi(async (api) => {
    const made = await Promise.all(
      ["alpha", "beta", "gamma", "delta", "epsilon"].map((name) => api.create({ name, tags: "prod", timeout: 3600, grace: 60 })),
    );
    const [alpha, beta, gamma, delta, epsilon] = made.map((c) => String(c.uuid));
    await api.ping(alpha);
    const rows = await rowsReader(api);
    const first = await rows();
    assert.is(first.status, 200);
    assert.equal([...rowsByRef(first.text).keys()].sort(), [alpha, beta, gamma, delta, epsilon].sort(), "every row names its check");
    // one of each kind of change: a ping, an edit of what a row shows, a pause, a deletion; time moves too;
    // epsilon (never pinged) shows the same
    await api.admin("POST", "/admin/v1/clock", { advance: 90 });
    await api.ping(beta);
    await api.call("POST", `/api/v3/checks/${gamma}`, { body: { name: "gamma <renamed>" } });
    await api.call("POST", `/api/v3/checks/${alpha}/pause`);
    await api.call("DELETE", `/api/v3/checks/${delta}`);
    const again = await rows(first.etag ?? "");
    assert.is(again.status, 200);
    assert.equal(
      [...again.text.matchAll(/data-keep="([^"]+)"/g)].map((m) => m[1]),
      [epsilon],
      "epsilon's row as a placeholder",
    );
    assert.not.ok(again.text.includes(`data-ref="${epsilon}"`));
    // the same query with a parameter nothing reads: a table never rendered, every row built
    const fresh = await rows(undefined, "&unused=1");
    assert.not.ok(fresh.text.includes("data-keep"));
    assert.is(rowsOnly(withShownRows(again.text, first.text)), rowsOnly(fresh.text));
    assert.ok(again.text.includes("gamma &lt;renamed&gt;") && !again.text.includes(delta) && again.text.includes("paused"), again.text);
    assert.ok(lastPingsIn(again.text).includes(await lastPingOf(api, alpha)), "alpha's ping");
    // a client holding an older render than the last gets every row
    await api.ping(beta);
    const older = await rows(first.etag ?? "");
    assert.is(older.status, 200);
    assert.not.ok(older.text.includes("data-keep"), older.text);
    assert.ok(older.text.includes(`data-ref="${epsilon}"`));
  }));

test.run();
