import { randomUUID } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { CheckDirectory, formatUuid, packChecks, parseUuid } from "../../host/check-directory.ts";

test("parseUuid accepts exactly the canonical form; formatUuid gives it back", () => {
  const words = new Uint32Array(4);
  for (let i = 0; i < 200; i++) {
    const uuid = randomUUID();
    assert.ok(parseUuid(uuid, words, 0));
    assert.is(formatUuid(words, 0), uuid);
  }
  const good = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  assert.ok(parseUuid(good, words, 0));
  assert.equal([...words], [0x0f1e2d3c, 0x4b5a6978, 0x8796a5b4, 0xc3d2e1f0]);
  for (const bad of [
    good.toUpperCase(),
    good.slice(1),
    good + "0",
    good.replace(/-/g, ""),
    good.replace("-", "x"),
    "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fg",
    "0f1e2d3c4-b5a-6978-8796-a5b4c3d2e1f0",
    "",
    " ".repeat(36),
  ]) {
    assert.not.ok(parseUuid(bad, words, 0), bad);
  }
});

test("lookups, replacements and deletions match a Map, through growth, for canonical and odd keys", () => {
  const directory = new CheckDirectory();
  const byUuid = new Map<string, string>(),
    byBadge = new Map<string, string>(),
    badgeOf = new Map<string, string>();
  const projects = Array.from({ length: 7 }, () => randomUUID());
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n;
  const live: string[] = [];
  const oddKey = (i: number) => `odd-${i}`;
  for (let step = 0; step < 30_000; step++) {
    const op = random(10);
    if (op < 6 || live.length === 0) {
      // add (a few with odd uuids or badge keys)
      const uuid = random(50) === 0 ? oddKey(step) : randomUUID();
      const badge = random(50) === 0 ? `badge-${step}` : randomUUID();
      const project = projects[random(projects.length)];
      directory.add(uuid, project, badge);
      byUuid.set(uuid, project);
      byBadge.set(badge, uuid);
      badgeOf.set(uuid, badge);
      live.push(uuid);
    } else if (op < 8) {
      // delete
      const uuid = live.splice(random(live.length), 1)[0];
      assert.ok(directory.delete(uuid));
      byUuid.delete(uuid);
      byBadge.delete(badgeOf.get(uuid)!);
      badgeOf.delete(uuid);
      assert.not.ok(directory.delete(uuid), "a second delete finds nothing");
    } else {
      // re-add an existing check with a new badge key (replace)
      const uuid = live[random(live.length)];
      const badge = randomUUID(),
        project = byUuid.get(uuid)!;
      directory.add(uuid, project, badge);
      byBadge.delete(badgeOf.get(uuid)!);
      byBadge.set(badge, uuid);
      badgeOf.set(uuid, badge);
    }
  }
  assert.is(directory.size, byUuid.size);
  for (const [uuid, project] of byUuid) assert.is(directory.projectOf(uuid), project);
  for (const [badge, uuid] of byBadge) assert.is(directory.checkOfBadge(badge), uuid);
  for (const unknown of [randomUUID(), "nope", "", oddKey(-1)]) {
    assert.is(directory.projectOf(unknown), undefined);
    assert.is(directory.checkOfBadge(unknown), undefined);
  }
});

test("a packed hand-over gives the same answers as adding one by one, next to what is already there", () => {
  const projects = [randomUUID(), randomUUID(), "project-odd"];
  const routes: [string, string, string][] = Array.from({ length: 5000 }, (_, i) => [
    i % 997 === 0 ? `check-${i}` : randomUUID(),
    projects[i % 3],
    i % 1009 === 0 ? `badge-${i}` : randomUUID(),
  ]);
  const directory = new CheckDirectory();
  const earlier = [randomUUID(), projects[1], randomUUID()] as const;
  directory.add(...earlier);
  const packed = packChecks(routes, routes.length);
  assert.is(packed.count + packed.odd.length, routes.length);
  assert.ok(packed.odd.length >= 10);
  directory.addPacked(packed);
  assert.is(directory.size, routes.length + 1);
  for (const [uuid, project, badge] of [...routes, earlier]) {
    assert.is(directory.projectOf(uuid), project);
    assert.is(directory.checkOfBadge(badge), uuid);
  }
});

test.run();
