// The checks table's auto-refresh with ETags (http/dashboard/rows-etag.ts), through the app on a real
// in-process pool and a virtual clock: 304 while nothing shown would change; the rows again after a ping,
// and after a status word changed by time alone (no flip, no command).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { Api } from "../http/harness.ts";
import { withApi } from "../http/harness.ts";

/** Signs in with the project's read-write key; returns a GET of the rows (sorted by name, `extra` added to the query) with or without If-None-Match. */
async function rowsReader(api: Api): Promise<(etag?: string, extra?: string) => Promise<{ status: number; etag: string | null; text: string }>> {
  const signIn = await api.app.request("/signin", { method: "POST", body: new URLSearchParams({ key: api.project.apiKey }) });
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
  assert.match(cookie, /^hcd_session=./);
  return async (etag, extra = "") => {
    const headers: Record<string, string> = { cookie };
    if (etag !== undefined) headers["if-none-match"] = etag;
    const res = await api.app.request(`/projects/${api.project.id}/checks/rows?sort=name${extra}`, { headers });
    return { status: res.status, etag: res.headers.get("etag"), text: await res.text() };
  };
}

const wordsIn = (text: string) => [...text.matchAll(/<span class="word">([a-z]+)<\/span>/g)].map((m) => m[1]);

test("no change: 304 with no body; a ping: the rows again, showing it; then 304 again", () => withApi(async (api) => {
  // a check pinged a day ago: its "1 day ago" and its "up" hold for a while
  const made = await api.create({ name: "nightly", timeout: 2 * DAY / 1000, grace: HOUR / 1000 });
  await api.ping(String(made.uuid));
  await api.admin("POST", "/admin/v1/clock", { advance: DAY / 1000 });
  const rows = await rowsReader(api);
  const first = await rows();
  assert.is(first.status, 200);
  assert.ok(first.etag !== null, "the rows carry an ETag");
  assert.ok(first.text.includes(`data-etag="${first.etag.replaceAll('"', "&quot;")}"`), "and say it in the fragment, for the page's script");
  assert.ok(first.text.includes("1 day ago"));

  await api.admin("POST", "/admin/v1/clock", { advance: 60 }); // time moves, nothing shown changes with it
  const unchanged = await rows(first.etag);
  assert.equal([unchanged.status, unchanged.text, unchanged.etag], [304, "", first.etag]);

  await api.ping(String(made.uuid));
  const pinged = await rows(first.etag);
  assert.is(pinged.status, 200, "a ping changes the project's version");
  assert.ok(pinged.text.includes("just now"), "and the rows show it");
  assert.is.not(pinged.etag, first.etag);
  assert.is((await rows(pinged.etag ?? "")).status, 304);
  assert.is((await rows(`W/"other"`)).status, 200, "an ETag of something else is a full answer");
}));

test("a status word that changes by time alone (up → grace, no flip) ends the 304s", () => withApi(async (api) => {
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

const rowsOnly = (text: string) => text.replace(/^<tbody[^>]*>/, "");

/** The rows of a tbody by the check each names (data-ref). */
const rowsByRef = (text: string) => new Map([...text.matchAll(/<tr class="[^"]*" data-ref="([^"]+)">[\s\S]*?<\/tr>/g)].map((m) => [m[1], m[0]]));
/** What the page's script makes of a refresh: each placeholder replaced by the row shown before. */
const withShownRows = (text: string, shown: string) => {
  const before = rowsByRef(shown);
  return text.replace(/<tr data-keep="([^"]+)"><\/tr>/g, (_, ref: string) => before.get(ref) ?? `MISSING ${ref}`);
};

test("a refresh sends only the changed rows to the client that holds the last render; put together, they are byte for byte a fresh render", () => withApi(async (api) => {
  const made = await Promise.all(["alpha", "beta", "gamma", "delta", "epsilon"].map((name) => api.create({ name, tags: "prod", timeout: 3600, grace: 60 })));
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
  assert.equal([...again.text.matchAll(/data-keep="([^"]+)"/g)].map((m) => m[1]), [epsilon], "epsilon's row as a placeholder");
  assert.not.ok(again.text.includes(`data-ref="${epsilon}"`));
  // the same query with a parameter nothing reads: a table never rendered, every row built
  const fresh = await rows(undefined, "&unused=1");
  assert.not.ok(fresh.text.includes("data-keep"));
  assert.is(rowsOnly(withShownRows(again.text, first.text)), rowsOnly(fresh.text));
  assert.ok(again.text.includes("gamma &lt;renamed&gt;") && !again.text.includes(delta) && again.text.includes("paused"), again.text);
  assert.ok(again.text.includes("1 minute ago"), "alpha's ping, 90 s ago");
  // a client holding an older render than the last gets every row
  await api.ping(beta);
  const older = await rows(first.etag ?? "");
  assert.is(older.status, 200);
  assert.not.ok(older.text.includes("data-keep"), older.text);
  assert.ok(older.text.includes(`data-ref="${epsilon}"`));
}));

test.run();
