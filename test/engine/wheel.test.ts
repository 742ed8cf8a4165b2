import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Millis } from "../../engine/model.ts";
import { DAY, MINUTE } from "../../engine/model.ts";
import { TimerWheel } from "../../engine/wheel.ts";

const wheel = (now: Millis = 0) => new TimerWheel<string>({ tickMs: 1_000, slots: 512, now });

test("fires what a jump passes over, earliest first, never early", () => {
  const w = wheel();
  w.set("late", 90 * MINUTE);
  w.set("soon", 2 * MINUTE);
  w.set("next-year", 365 * DAY);
  assert.equal(w.advance(2 * MINUTE - 1), []);
  assert.equal(w.advance(DAY), ["soon", "late"]);
  assert.equal(w.advance(400 * DAY), ["next-year"]);
});

test("never early inside a tick: due at 1500 fires at 1500, not 1499", () => {
  const w = wheel();
  w.set("k", 1_500);
  assert.equal(w.advance(1_499), []);
  assert.equal(w.advance(1_500), ["k"]);
});

test("keys due in the same tick come out earliest first", () => {
  const w = wheel();
  w.set("c", 1_900);
  w.set("a", 1_100);
  w.set("b", 1_500);
  assert.equal(w.advance(2_000), ["a", "b", "c"]);
});

test("fired keys are forgotten", () => {
  const w = wheel();
  w.set("k", 10);
  assert.equal(w.advance(10), ["k"]);
  assert.equal(w.advance(DAY), []);
  assert.is(w.size, 0);
});

test("set replaces a key's deadline", () => {
  const w = wheel();
  w.set("k", 5_000);
  w.set("k", 9_000);
  assert.is(w.size, 1);
  assert.is(w.dueAt("k"), 9_000);
  assert.equal(w.advance(8_999), []);
  assert.equal(w.advance(9_000), ["k"]);
});

test("set can move a deadline earlier", () => {
  const w = wheel();
  w.set("k", DAY);
  w.set("k", 2_000);
  assert.equal(w.advance(2_000), ["k"]);
  assert.equal(w.advance(2 * DAY), []);
});

test("delete removes a key; deleting an unknown key answers false", () => {
  const w = wheel();
  w.set("k", 1_000);
  assert.is(w.delete("k"), true);
  assert.is(w.delete("k"), false);
  assert.is(w.dueAt("k"), null);
  assert.equal(w.advance(DAY), []);
});

test("a deadline already past fires on the next advance", () => {
  const w = wheel(100 * DAY);
  w.set("past", 5);
  assert.equal(w.advance(100 * DAY), ["past"]);
});

test("a past deadline moved ahead or deleted leaves the overdue keys; the others fire, earliest first", () => {
  const w = wheel(10 * MINUTE);
  w.set("moved", MINUTE);
  w.set("gone", MINUTE);
  w.set("later", 2 * MINUTE);
  w.set("first", MINUTE);
  w.set("moved", 20 * MINUTE);
  assert.ok(w.delete("gone"));
  assert.is(w.dueAt("moved"), 20 * MINUTE);
  assert.equal(w.advance(10 * MINUTE), ["first", "later"]);
  assert.equal(w.advance(20 * MINUTE - 1), []);
  assert.equal(w.advance(20 * MINUTE), ["moved"]);
  assert.is(w.size, 0);
});

test("a deadline in the current tick set after an advance still fires", () => {
  const w = wheel();
  assert.equal(w.advance(10_500), []);
  w.set("k", 10_200);
  w.set("j", 10_700);
  assert.equal(w.advance(10_600), ["k"]);
  assert.equal(w.advance(10_700), ["j"]);
});

test("an entry a turn or more ahead waits when its slot comes round early", () => {
  const w = wheel();
  const turn = 512 * 1_000;
  w.set("far", 3 * turn + 2_000);
  w.set("near", 2_000);
  assert.equal(w.advance(2_000), ["near"]);
  assert.equal(w.advance(turn + 2_000), []);
  assert.equal(w.advance(3 * turn + 1_999), []);
  assert.equal(w.advance(3 * turn + 2_000), ["far"]);
});

test("a jump of many turns fires everything due, earliest first, and keeps the rest", () => {
  const w = wheel();
  const ats = [7 * DAY, 3, 2 * DAY + 17, 512_000, 511_999, 40 * DAY];
  ats.forEach((at, i) => w.set(`k${i}`, at));
  assert.equal(w.advance(7 * DAY), ["k1", "k4", "k3", "k2", "k0"]);
  assert.is(w.size, 1);
  assert.equal(w.advance(40 * DAY), ["k5"]);
});

test("a tick that is not positive or a slot count that is not a whole number of at least 1 is refused", () => {
  for (const [tickMs, slots] of [
    [0, 8],
    [-1, 8],
    [Number.NaN, 8],
    [1_000, 0],
    [1_000, 1.5],
    [1_000, -2],
  ]) {
    assert.throws(() => new TimerWheel<string>({ tickMs, slots, now: 0 }), /bad tickMs or slots/, `tickMs ${tickMs}, slots ${slots}`);
  }
  const smallest = new TimerWheel<string>({ tickMs: 0.5, slots: 1, now: 0 }); // one slot, a half-ms tick: still a wheel
  smallest.set("a", 3);
  assert.equal([smallest.advance(2), smallest.advance(3)], [[], ["a"]]);
});

test("size counts waiting keys", () => {
  const w = wheel();
  w.set("a", 1);
  w.set("b", 2);
  w.set("a", 3);
  assert.is(w.size, 2);
});

test("nextDueAt is the earliest deadline, null when empty, and follows deletes and advances", () => {
  const w = wheel();
  assert.is(w.nextDueAt(), null);
  w.set("a", 5_000);
  w.set("b", 3_000);
  w.set("c", 9_000);
  assert.is(w.nextDueAt(), 3_000);
  w.delete("b");
  assert.is(w.nextDueAt(), 5_000);
  w.set("a", 12_000);
  assert.is(w.nextDueAt(), 9_000);
  w.advance(9_000);
  assert.is(w.nextDueAt(), 12_000);
  w.set("d", 1);
  assert.is(w.nextDueAt(), 1);
});

test("matches a plain model over random sets, deletes and jumps", () => {
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const w = new TimerWheel<number>({ tickMs: 250, slots: 16, now: 0 });
  const model = new Map<number, Millis>();
  let now = 0;
  for (let step = 0; step < 5_000; step++) {
    const r = random();
    const key = Math.floor(random() * 200);
    if (r < 0.5) {
      const at = now + Math.floor((random() - 0.1) * 20_000); // some already past
      w.set(key, at);
      model.set(key, at);
    } else if (r < 0.6) {
      assert.is(w.delete(key), model.delete(key));
    } else {
      now += Math.floor(random() * (random() < 0.05 ? 100_000 : 1_500));
      const due = [...model].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
      const fired = w.advance(now);
      assert.equal(
        fired.map((k) => model.get(k)),
        due.map(([, at]) => at),
      ); // same deadlines in the same order
      assert.equal(new Set(fired), new Set(due.map(([k]) => k)));
      for (const [k] of due) model.delete(k);
    }
    assert.is(w.size, model.size);
    assert.is(w.nextDueAt(), model.size === 0 ? null : Math.min(...model.values()));
  }
});

test.run();
