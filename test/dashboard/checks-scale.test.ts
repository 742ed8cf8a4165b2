// The checks list of a large project through the app on a real in-process pool: pages of PAGE_SIZE rows
// with a pager that keeps the filters, and compressed answers (brotli or gzip as Accept-Encoding asks,
// Vary: Accept-Encoding), small ones left as they are.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { encodingFor } from "../../http/dashboard/compression.ts";
import type { Api } from "../http/harness.ts";
import { withApi } from "../http/harness.ts";

const CHECKS = 250;

/** A project of CHECKS checks named job-000 ... job-249, every even one tagged "even"; a GET signed in with its key. */
async function bigProject(api: Api): Promise<{ get: (path: string, headers?: Record<string, string>) => Promise<Response>; base: string }> {
  const project = await api.newProject({ checkLimit: CHECKS, name: "big" });
  for (let i = 0; i < CHECKS; i++) {
    const made = await api.call("POST", "/api/v3/checks/", {
      key: project.apiKey,
      body: { name: `job-${String(i).padStart(3, "0")}`, tags: i % 2 === 0 ? "even" : "odd" },
    });
    assert.is(made.status, 201, made.text);
  }
  const signIn = await api.app.request("/signin", { method: "POST", body: new URLSearchParams({ key: project.apiKey }) });
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
  const get = (path: string, headers: Record<string, string> = {}) =>
    Promise.resolve(api.app.request(path, { headers: { cookie, ...headers } }));
  return { get, base: `/projects/${project.id}/checks` };
}

const namesIn = (text: string) => [...text.matchAll(/<a href="\/checks\/[^"]+">(job-\d+)<\/a>/g)].map((m) => m[1]);
const job = (i: number) => `job-${String(i).padStart(3, "0")}`;
const range = (from: number, to: number, step = 1) => Array.from({ length: Math.ceil((to - from) / step) }, (_, k) => job(from + k * step));
const pagerIn = (text: string) => /<tr class="pager">[\s\S]*?<\/tr>/.exec(text)?.[0] ?? "";

test("a page holds 100 rows, in order; the pager says which and links to the pages around, keeping sort and filters", () =>
  withApi(async (api) => {
    const { get, base } = await bigProject(api);
    const first = await (await get(`${base}?sort=name`)).text();
    assert.equal(namesIn(first), range(0, 100));
    assert.match(pagerIn(first), "Checks 1–100 of 250");
    assert.match(pagerIn(first), `<a rel="next" href="?sort=name&amp;page=2">Next</a>`);
    assert.not.match(pagerIn(first), "Previous");
    const last = await (await get(`${base}/rows?sort=name&page=3`)).text(); // the refresh asks with the page's own query
    assert.equal(namesIn(last), range(200, 250));
    assert.match(pagerIn(last), "Checks 201–250 of 250");
    assert.match(pagerIn(last), `<a rel="prev" href="?sort=name&amp;page=2">Previous</a>`);
    assert.not.match(pagerIn(last), "Next");
    assert.equal(namesIn(await (await get(`${base}?sort=name&page=99`)).text()), range(200, 250), "past the end: the last page");
    assert.equal(namesIn(await (await get(`${base}?sort=name&page=x`)).text()), range(0, 100), "not a page number: the first");
    const even = await (await get(`${base}?tag=even&sort=name&page=2`)).text();
    assert.equal(namesIn(even), range(200, 250, 2), "the filter first, then the page of what it kept");
    assert.match(pagerIn(even), "Checks 101–125 of 125");
    assert.match(pagerIn(even), `href="?tag=even&amp;sort=name&amp;page=1"`);
    const searched = await (await get(`${base}?q=job-24`)).text();
    assert.equal(namesIn(searched).sort(), range(240, 250));
    assert.is(pagerIn(searched), "", "one page: no pager");
  }));

test("the search looks at tags too; several tags keep the checks that have them all; a row's tag links to the filter with it added", () =>
  withApi(async (api) => {
    const { get, base } = await bigProject(api);
    const byTag = await (await get(`${base}?q=EVE&sort=name&page=2`)).text();
    assert.equal(namesIn(byTag), range(200, 250, 2), "the tag even, whatever the case typed");
    assert.match(pagerIn(byTag), "Checks 101–125 of 125");
    const both = await (await get(`${base}?tag=even&tag=odd`)).text();
    assert.equal(namesIn(both), [], "no check is both");
    assert.match(both, `<tr class="none"><td colspan="6">No checks match.</td></tr>`);
    const again = await (await get(`${base}?tag=even&tag=&tag=even&sort=name`)).text();
    assert.equal(namesIn(again), range(0, 200, 2), "a tag twice counts once; an empty one is the form's any");
    // in the filter: a hidden field per chosen tag, a link that drops it; the select offers the others
    assert.match(again, `<input type="hidden" name="tag" value="even">`);
    assert.match(again, `<a href="?sort=name" aria-label="Stop filtering by tag even">×</a>`);
    assert.match(
      again,
      /<select id="tag" name="tag"><option value="" selected>add a tag…<\/option><option value="odd">odd<\/option><\/select>/,
    );
    // the rows: a tag the filter has is plain; another is a link to the filter with it added
    assert.match(again, `<span class="tag">even</span>`);
    assert.not.match(again, `class="tag" href`);
    const plain = await (await get(`${base}?q=job-00&sort=last_ping`)).text();
    assert.match(plain, `<a class="tag" href="?q=job-00&amp;tag=even&amp;sort=last_ping"`);
    assert.match(plain, `<a class="tag" href="?q=job-00&amp;tag=odd&amp;sort=last_ping"`);
    const rows = await (await get(`${base}/rows?tag=odd`)).text();
    assert.match(rows, `<span class="tag">odd</span>`, "the refresh's rows alike");
  }));

const decoders = { br: brotliDecompressSync, gzip: gunzipSync } as const;

test("the checks page and its rows come compressed as Accept-Encoding asks, with Vary; the same HTML once decoded", () =>
  withApi(async (api) => {
    const { get, base } = await bigProject(api);
    const plain = await get(`${base}?sort=name`);
    assert.is(plain.headers.get("content-encoding"), null, "no Accept-Encoding: as it is");
    assert.match(plain.headers.get("vary") ?? "", "Accept-Encoding");
    const html = await plain.text();
    for (const [accept, encoding] of [
      ["gzip, deflate, br, zstd", "br"],
      ["gzip, deflate", "gzip"],
      ["br;q=0, gzip", "gzip"],
    ] as const) {
      const packed = await get(`${base}?sort=name`, { "accept-encoding": accept });
      assert.is(packed.headers.get("content-encoding"), encoding, accept);
      assert.match(packed.headers.get("vary") ?? "", "Accept-Encoding");
      const bytes = new Uint8Array(await packed.arrayBuffer());
      assert.is(Number(packed.headers.get("content-length")), bytes.byteLength);
      assert.ok(bytes.byteLength * 4 < html.length, `${encoding}: ${bytes.byteLength} bytes for ${html.length}`);
      // the same page but for the session's own CSRF token and the rows' instant: same rows, same pager
      const decoded = decoders[encoding](bytes).toString("utf8");
      assert.equal(namesIn(decoded), namesIn(html));
      assert.is(pagerIn(decoded), pagerIn(html));
    }
    const rows = await get(`${base}/rows?sort=name`, { "accept-encoding": "gzip" });
    assert.is(rows.headers.get("content-encoding"), "gzip");
    assert.equal(namesIn(gunzipSync(new Uint8Array(await rows.arrayBuffer())).toString("utf8")), range(0, 100));
    const unchanged = await get(`${base}/rows?sort=name`, { "accept-encoding": "gzip", "if-none-match": rows.headers.get("etag") ?? "" });
    assert.equal([unchanged.status, unchanged.headers.get("content-encoding")], [304, null], "a 304 has nothing to compress");
  }));

test("the script is served compressed; a body under 1 kB is not", () =>
  withApi(async (api) => {
    const script = await api.app.request("/static/dashboard.js", { headers: { "accept-encoding": "br" } });
    assert.is(script.headers.get("content-encoding"), "br");
    assert.match(brotliDecompressSync(new Uint8Array(await script.arrayBuffer())).toString("utf8"), "function keepFresh");
    const icon = await api.app.request("/static/favicon.svg", { headers: { "accept-encoding": "br" } });
    assert.is(icon.headers.get("content-encoding"), null);
    assert.match(await icon.text(), "<svg");
  }));

const encodings: [accept: string | null, want: "br" | "gzip" | null][] = [
  [null, null],
  ["", null],
  ["identity", null],
  ["gzip", "gzip"],
  ["GZIP, BR", "br"],
  ["br;q=0", null],
  ["br;q=0, gzip;q=0.5", "gzip"],
  ["*", "br"],
  ["*;q=0, gzip", "gzip"],
  ["deflate, zstd", null],
];
for (const [accept, want] of encodings)
  test(`Accept-Encoding ${JSON.stringify(accept)} → ${want}`, () => assert.is(encodingFor(accept), want));

test.run();
