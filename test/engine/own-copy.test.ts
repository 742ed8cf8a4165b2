import { test } from "uvu";
import * as assert from "uvu/assert";
import { ownCopy } from "../../engine/shard-state.ts";

test("ownCopy returns an equal string for every length and content", () => {
  const text = "😀0123456789abcdef-ÀÉ €😀\ud800x" + "z".repeat(40);
  for (let start = 0; start < 8; start++) {
    for (let end = start; end <= text.length; end++) {
      const cut = text.slice(start, end);
      assert.is(ownCopy(cut), cut, `slice ${start}..${end}`);
    }
  }
});

test("ownCopy keeps a surrogate pair cut between its halves, and lone surrogates, exactly", () => {
  const split = "😀" + "b".repeat(14); // the copy is made of its first character and the rest: the pair's halves
  assert.is(ownCopy(split), split);
  assert.is(ownCopy(split).codePointAt(0), 0x1f600);
  const lone = "x".repeat(12) + "\udc00" + "y".repeat(3);
  assert.is(ownCopy(lone), lone);
  assert.is(ownCopy(lone).charCodeAt(12), 0xdc00);
});

test.run();
