// The shared renders of the checks table's auto-refresh (http/dashboard/rows-cache.ts), on a hand-moved
// monotonic clock: another client takes a render younger than the window; the client that holds it, a
// render past the window, and a render past its time-alone instant get none.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { COALESCE_MS, RowsCache } from "../../http/dashboard/rows-cache.ts";

function cacheAt(startMs = 10_000) {
  let now = startMs;
  const cache = new RowsCache(() => now);
  return {
    cache,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const render = (etag: string, untilAt = Infinity) => ({ parts: [`<tbody>${etag}</tbody>`], etag, untilAt });

test("a render younger than the window serves a client that does not hold it, with or without an ETag", () => {
  const { cache, advance } = cacheAt();
  cache.keep("p/v", render('W/"a"'));
  advance(COALESCE_MS - 1);
  assert.is(cache.shared("p/v", 0, null)?.etag, 'W/"a"');
  assert.is(new TextDecoder().decode(cache.shared("p/v", 0, 'W/"older"')?.parts[0]), '<tbody>W/"a"</tbody>', "the render's parts, encoded");
  assert.is(cache.shared("p/other", 0, null), null, "another table");
});

test("the client that holds the render gets none: it renders afresh, so one viewer alone sees every change", () => {
  const { cache } = cacheAt();
  cache.keep("p/v", render('W/"a"'));
  assert.is(cache.shared("p/v", 0, 'W/"a"'), null);
  assert.is(cache.shared("p/v", 0, 'W/"x", W/"a"'), null, "in a list of ETags too");
});

test("a render past the window or past its time-alone instant serves nobody", () => {
  const { cache, advance } = cacheAt();
  cache.keep("p/v", render('W/"a"', 5_000));
  assert.is(cache.shared("p/v", 5_000, null), null, "the clock reached the instant a word or a relative time changes");
  assert.is(cache.shared("p/v", 4_999, null)?.etag, 'W/"a"');
  advance(COALESCE_MS);
  assert.is(cache.shared("p/v", 0, null), null);
});

test("a newer render replaces the table's; at most 32 tables are kept, the oldest go first", () => {
  const { cache, advance } = cacheAt();
  cache.keep("p/v", render('W/"a"'));
  cache.keep("p/v", render('W/"b"'));
  assert.is(cache.shared("p/v", 0, null)?.etag, 'W/"b"');
  for (let i = 0; i < 32; i++) {
    advance(1);
    cache.keep(`t${i}`, render(`W/"t${i}"`));
  }
  assert.is(cache.shared("p/v", 0, null), null, "pushed out by 32 younger tables");
  assert.is(cache.shared("t0", 0, null)?.etag, 'W/"t0"');
  assert.is(cache.shared("t31", 0, null)?.etag, 'W/"t31"');
});

test.run();
