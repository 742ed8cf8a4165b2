// BoundedMap: at most `max` entries, the oldest set (or touched) first to go.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { BoundedMap } from "../../lib/bounded-map.ts";

test("holds at most max entries and forgets the oldest set first", () => {
  const map = new BoundedMap<string, number>(3);
  for (const [i, key] of ["a", "b", "c", "d"].entries()) map.set(key, i);
  assert.equal([...map.keys()], ["b", "c", "d"]);
  assert.is(map.size, 3);
  assert.is(map.get("a"), undefined);
});

test("setting a key again makes it the newest; get leaves the order, touch moves it last", () => {
  const map = new BoundedMap<string, number>(3);
  map.set("a", 1).set("b", 2).set("c", 3);
  map.set("a", 10);
  assert.equal(
    [...map.entries()],
    [
      ["b", 2],
      ["c", 3],
      ["a", 10],
    ],
  );
  assert.is(map.get("b"), 2);
  assert.equal([...map.keys()], ["b", "c", "a"], "get changes nothing");
  assert.is(map.touch("b"), 2);
  map.set("d", 4);
  assert.equal([...map.keys()], ["a", "b", "d"], "c was the oldest once b was touched");
  assert.is(map.touch("nope"), undefined);
  assert.is(map.size, 3);
});

test("delete and clear; a bound below one is refused", () => {
  const map = new BoundedMap<number, string>(2);
  map.set(1, "x").set(2, "y");
  assert.ok(map.delete(1));
  assert.not.ok(map.has(1));
  map.clear();
  assert.is(map.size, 0);
  assert.throws(() => new BoundedMap(0), /at least one/);
});

test.run();
