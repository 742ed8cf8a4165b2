// The shard's in-memory indexes on their own: projects by id and ping key, each project's channels in
// creation order and how references to them resolve, checks by uuid and by project, listing with its
// filters and order, matching on unique fields, and the sorted snapshot.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ShardState } from "../../engine/shard-state.ts";
import type { Check, CheckSpec } from "../../engine/model.ts";
import { channel, check, project } from "../helpers.ts";

const P = "00000000-0000-4000-8000-00000000000p",
  Q = "00000000-0000-4000-8000-00000000000q";

function stateWith(...checks: Check[]): ShardState {
  const state = new ShardState();
  state.putProject(project({ id: P }));
  state.putProject(project({ id: Q }));
  for (const c of checks) state.putCheck(c);
  return state;
}
const uuids = (checks: readonly Check[]) => checks.map((c) => c.uuid);

// ---- projects ----

test("a project is found by id and by ping key; unknown ones are not", () => {
  const state = stateWith();
  assert.is(state.project(P)?.id, P);
  assert.is(state.projectByPingKey(`pk-${P}`)?.id, P);
  assert.is(state.projectByPingKey(`pk-${Q}`)?.id, Q);
  assert.is(state.project("nope"), undefined);
  assert.is(state.projectByPingKey("nope"), undefined);
  assert.equal(
    state.projects().map((p) => p.id),
    [P, Q],
  );
});

test("a new project has no channels and no checks", () => {
  const state = stateWith();
  assert.equal(state.channels(P), []);
  assert.equal(state.checkUuids(P), []);
  assert.is(state.checkCountOf(P), 0);
  assert.equal(state.listChecks(P, { tags: [] }), []);
});

test("a project stored again (changed) keeps its channels and its checks", () => {
  const c = check({ projectId: P }),
    ch = channel({ projectId: P });
  const state = stateWith(c);
  state.addChannel(ch);
  state.putProject(project({ id: P, name: "renamed" }));
  assert.is(state.project(P)?.name, "renamed");
  assert.is(state.projectByPingKey(`pk-${P}`)?.name, "renamed");
  assert.equal(state.channels(P), [ch]);
  assert.equal(state.checkUuids(P), [c.uuid]);
});

test("a ping key that changed, or was cleared by a deletion, names the project no more", () => {
  const state = stateWith();
  state.putProject(project({ id: P, pingKey: "new-key" }));
  assert.is(state.projectByPingKey(`pk-${P}`), undefined);
  assert.is(state.projectByPingKey("new-key")?.id, P);
  state.putProject(project({ id: P, pingKey: "", deletedAt: 5 }));
  assert.is(state.projectByPingKey("new-key"), undefined);
  assert.is(state.projectByPingKey(""), undefined);
  assert.is(state.projectByPingKey(`pk-${Q}`)?.id, Q, "another project's key is untouched");
});

// ---- channels ----

test("channels: added in creation order; to an unknown project refused and kept nowhere", () => {
  const state = stateWith();
  const a = channel({ projectId: P, name: "a" }),
    b = channel({ projectId: P, name: "b" }),
    stray = channel({ projectId: "unknown" });
  assert.is(state.addChannel(a), true);
  assert.is(state.addChannel(b), true);
  assert.is(state.addChannel(stray), false);
  assert.equal(state.channels(P), [a, b]);
  assert.equal(state.channels("unknown"), []);
  assert.equal(state.channels(Q), []);
  assert.equal(
    state
      .snapshot()
      .channels.map((c) => c.id)
      .sort(),
    [a.id, b.id].sort(),
  );
});

test("setChannels keeps its own copy of the list", () => {
  const state = stateWith();
  const list = [channel({ projectId: P }), channel({ projectId: P })];
  state.setChannels(P, list);
  list.pop();
  assert.is(state.channels(P).length, 2);
  assert.equal(state.channels(P)[0], list[0]);
});

test("removeChannel: the first, the last, none of an unknown project or id", () => {
  const state = stateWith();
  const [a, b, c] = [channel({ projectId: P }), channel({ projectId: P }), channel({ projectId: P })];
  state.setChannels(P, [a, b, c]);
  assert.is(state.removeChannel(P, "nope"), undefined);
  assert.is(state.removeChannel("unknown", a.id), undefined);
  assert.is(state.removeChannel(Q, a.id), undefined, "another project's channel list does not have it");
  assert.equal(state.channels(P), [a, b, c], "nothing removed by the misses");
  assert.is(state.removeChannel(P, a.id), a);
  assert.equal(state.channels(P), [b, c]);
  assert.is(state.removeChannel(P, c.id), c);
  assert.equal(state.channels(P), [b]);
  assert.is(state.removeChannel(P, a.id), undefined, "removed once only");
});

test("replaceChannel: in its place, the first one too; false for an unknown project or id", () => {
  const state = stateWith();
  const [a, b] = [channel({ projectId: P, name: "a" }), channel({ projectId: P, name: "b" })];
  state.setChannels(P, [a, b]);
  const a2 = { ...a, name: "a2" },
    b2 = { ...b, name: "b2" };
  assert.is(state.replaceChannel(a2), true);
  assert.is(state.replaceChannel(b2), true);
  assert.equal(state.channels(P), [a2, b2]);
  assert.is(state.replaceChannel(channel({ projectId: P })), false);
  assert.is(state.replaceChannel({ ...a, projectId: "unknown" }), false);
  assert.equal(state.channels(P), [a2, b2]);
});

test("channel references: all, by id or by name (an id first), each exactly one, sorted without repeats", () => {
  const state = stateWith();
  const ids = ["00000000-0000-4000-8000-0000000000c3", "00000000-0000-4000-8000-0000000000c1", "00000000-0000-4000-8000-0000000000c2"];
  const [x, y, z] = [
    channel({ id: ids[0], projectId: P, name: "ops" }),
    channel({ id: ids[1], projectId: P, name: "dev" }),
    channel({ id: ids[2], projectId: P, name: "dev" }),
  ];
  state.setChannels(P, [x, y, z]);
  state.setChannels(Q, [channel({ projectId: Q, name: "ops" })]);
  assert.equal(state.resolveChannels(P, undefined), { ok: true, value: undefined });
  assert.equal(state.resolveChannels(P, { all: true }), { ok: true, value: [ids[1], ids[2], ids[0]] });
  assert.equal(state.resolveChannels(P, { refs: ["ops"] }), { ok: true, value: [ids[0]] });
  assert.equal(state.resolveChannels(P, { refs: [ids[0], ids[2], "ops"] }), { ok: true, value: [ids[2], ids[0]] });
  assert.equal(state.resolveChannels(P, { refs: [] }), { ok: true, value: [] });
  assert.equal(state.resolveChannels(P, { refs: ["ops", ""] }), {
    ok: false,
    failure: { code: "invalid", field: "channels", reason: "empty channel identifier" },
  });
  assert.equal(state.resolveChannels(P, { refs: ["nope"] }), {
    ok: false,
    failure: { code: "invalid", field: "channels", reason: "invalid channel identifier: nope" },
  });
  assert.equal(state.resolveChannels(P, { refs: ["dev"] }), {
    ok: false,
    failure: { code: "invalid", field: "channels", reason: "non-unique channel identifier: dev" },
  });
  // a channel named like another's id: the id wins
  const named = channel({ projectId: P, name: ids[1] });
  state.addChannel(named);
  assert.equal(state.resolveChannels(P, { refs: [ids[1]] }), { ok: true, value: [ids[1]] });
  assert.equal(state.resolveChannels(Q, { all: true }).ok, true);
  assert.equal(state.resolveChannels("unknown", { all: true }), { ok: true, value: [] });
});

// ---- checks ----

test("checks: stored by uuid and project; stored again when changed, counted once", () => {
  const a = check({ projectId: P }),
    b = check({ projectId: Q });
  const state = stateWith(a, b);
  assert.is(state.checkCount, 2);
  assert.is(state.checkCountOf(P), 1);
  state.putCheck({ ...a, name: "changed" });
  assert.is(state.check(a.uuid)?.name, "changed");
  assert.is(state.checkCount, 2);
  assert.equal(state.checkUuids(P), [a.uuid]);
  assert.equal(state.checkUuids(Q), [b.uuid]);
  assert.is(state.check("nope"), undefined);
  assert.is(state.checkCountOf("unknown"), 0);
  assert.equal(state.checkUuids("unknown"), []);
});

test("a check of a project not stored yet is indexed under it", () => {
  const state = new ShardState();
  const c = check({ projectId: "later" });
  state.putCheck(c);
  assert.equal(state.checkUuids("later"), [c.uuid]);
  assert.equal(uuids(state.listChecks("later", { tags: [] })), [c.uuid]);
});

test("deleteCheck removes it from every index; an unknown project or uuid is no error", () => {
  const a = check({ projectId: P }),
    b = check({ projectId: P });
  const state = stateWith(a, b);
  state.deleteCheck(P, a.uuid);
  state.deleteCheck("unknown", b.uuid + "x");
  state.deleteCheck(P, "nope");
  assert.is(state.check(a.uuid), undefined);
  assert.is(state.checkCount, 1);
  assert.is(state.checkCountOf(P), 1);
  assert.equal(state.checkUuids(P), [b.uuid]);
  assert.equal(uuids(state.listChecks(P, { tags: [] })), [b.uuid]);
  assert.equal(uuids(state.snapshot().checks), [b.uuid]);
});

test("listing: oldest first, equal creation instants by uuid, whatever the order they were stored in", () => {
  const mk = (hex: string, createdAt: number) => check({ uuid: `00000000-0000-4000-8000-0000000000${hex}`, projectId: P, createdAt });
  const [late, earlyB, earlyA, mid, earlyC] = [mk("09", 300), mk("0b", 100), mk("0a", 100), mk("01", 200), mk("0c", 100)];
  const state = stateWith(late, earlyB, mid, earlyC, earlyA, check({ projectId: Q }));
  assert.equal(uuids(state.listChecks(P, { tags: [] })), uuids([earlyA, earlyB, earlyC, mid, late]));
  assert.equal(state.listChecks("unknown", { tags: [] }), []);
});

test("listing by slug: exactly that slug, the empty one too", () => {
  const [a, b, c] = [
    check({ projectId: P, slug: "backup", createdAt: 1 }),
    check({ projectId: P, slug: "backup-2", createdAt: 2 }),
    check({ projectId: P, slug: "", createdAt: 3 }),
  ];
  const state = stateWith(a, b, c, check({ projectId: Q, slug: "backup" }));
  assert.equal(uuids(state.listChecks(P, { slug: "backup", tags: [] })), [a.uuid]);
  assert.equal(uuids(state.listChecks(P, { slug: "", tags: [] })), [c.uuid]);
  assert.equal(uuids(state.listChecks(P, { slug: "back", tags: [] })), []);
  assert.equal(uuids(state.listChecks(P, { tags: [] })), uuids([a, b, c]));
});

test("listing by tags: each tag asked for must be carried, whole", () => {
  const [ab, a, abc, none] = [
    check({ projectId: P, tags: "a  b", createdAt: 1 }),
    check({ projectId: P, tags: "a", createdAt: 2 }),
    check({ projectId: P, tags: "abc", createdAt: 3 }),
    check({ projectId: P, tags: "", createdAt: 4 }),
  ];
  const state = stateWith(ab, a, abc, none);
  assert.equal(uuids(state.listChecks(P, { tags: ["a"] })), uuids([ab, a]));
  assert.equal(uuids(state.listChecks(P, { tags: ["b", "a"] })), [ab.uuid]);
  assert.equal(uuids(state.listChecks(P, { tags: ["a", "c"] })), []);
  assert.equal(uuids(state.listChecks(P, { tags: ["abc"] })), [abc.uuid]);
  assert.equal(uuids(state.listChecks(P, { slug: "", tags: ["a"] })), uuids([ab, a]));
  assert.equal(uuids(state.listChecks(P, { slug: "x", tags: ["a"] })), []);
});

// ---- unique matching ----

const FIELDS = [
  { field: "name", check: { name: "n1" }, other: { name: "n2" }, spec: { name: "n2" } as CheckSpec, neither: { name: "n3" } as CheckSpec },
  { field: "slug", check: { slug: "s1" }, other: { slug: "s2" }, spec: { slug: "s2" }, neither: { slug: "s3" } },
  { field: "tags", check: { tags: "t1" }, other: { tags: "t2" }, spec: { tags: "t2" }, neither: { tags: "t1 t2" } },
  {
    field: "timeout",
    check: { timeoutMs: 60_000 },
    other: { timeoutMs: 120_000 },
    spec: { timeoutMs: 120_000 },
    neither: { timeoutMs: 180_000 },
  },
  { field: "grace", check: { graceMs: 60_000 }, other: { graceMs: 120_000 }, spec: { graceMs: 120_000 }, neither: { graceMs: 180_000 } },
] as const;

for (const f of FIELDS) {
  test(`unique on ${f.field}: the check equal on it; none when it differs or the spec lacks it`, () => {
    const first = check({ projectId: P, createdAt: 1, ...f.check }),
      second = check({ projectId: P, createdAt: 2, ...f.other });
    const state = stateWith(first, second, check({ projectId: Q, ...f.other }));
    assert.is(state.findUnique(P, f.spec, [f.field])?.uuid, second.uuid);
    assert.is(state.findUnique(P, f.neither, [f.field]), null);
    const lacking = FIELDS.find((g) => g.field !== f.field)!;
    assert.is(state.findUnique(P, { ...lacking.spec }, [f.field]), null, "the spec does not give the field");
    assert.is(state.findUnique(Q, f.neither, [f.field]), null, "another project's check is not matched");
  });
}

test("unique matching: every field must match, the oldest match wins, no fields match nothing", () => {
  const old = check({ projectId: P, name: "db", slug: "db", createdAt: 1 }),
    young = check({ projectId: P, name: "db", slug: "db", createdAt: 2 });
  const other = check({ projectId: P, name: "db", slug: "web", createdAt: 0 });
  const state = stateWith(young, other, old);
  assert.is(state.findUnique(P, { name: "db", slug: "db" }, ["name", "slug"])?.uuid, old.uuid);
  assert.is(state.findUnique(P, { name: "db", slug: "web" }, ["name", "slug"])?.uuid, other.uuid);
  assert.is(state.findUnique(P, { name: "web", slug: "db" }, ["name", "slug"]), null);
  assert.is(state.findUnique(P, { name: "db" }, ["name", "slug"]), null, "slug not given");
  assert.is(state.findUnique(P, { name: "db" }, []), null);
});

// ---- routes, snapshot, compaction ----

test("routes: uuid, project and badge key of every check", () => {
  const a = check({ projectId: P }),
    b = check({ projectId: Q });
  assert.equal(
    [...stateWith(a, b).routes()].sort(),
    [
      [a.uuid, P, a.badgeKey],
      [b.uuid, Q, b.badgeKey],
    ].sort(),
  );
});

test("the snapshot: projects, channels and checks each sorted by id, whatever the order they came in", () => {
  const id = (hex: string) => `00000000-0000-4000-8000-0000000000${hex}`;
  const state = new ShardState();
  for (const hex of ["b2", "a1", "c3"]) state.putProject(project({ id: id(hex) }));
  state.setChannels(id("b2"), [channel({ id: id("f6"), projectId: id("b2") }), channel({ id: id("d4"), projectId: id("b2") })]);
  state.setChannels(id("a1"), [channel({ id: id("e5"), projectId: id("a1") })]);
  for (const [hex, p] of [
    ["99", "c3"],
    ["11", "a1"],
    ["55", "b2"],
    ["33", "a1"],
  ])
    state.putCheck(check({ uuid: id(hex), projectId: id(p) }));
  const snapshot = state.snapshot();
  assert.equal(
    snapshot.projects.map((p) => p.id),
    [id("a1"), id("b2"), id("c3")],
  );
  assert.equal(
    snapshot.channels.map((c) => c.id),
    [id("d4"), id("e5"), id("f6")],
  );
  assert.equal(
    snapshot.checks.map((c) => c.uuid),
    [id("11"), id("33"), id("55"), id("99")],
  );
});

test("compact returns an equal check, an open run's rid and channels included", () => {
  const state = new ShardState();
  const long = "x".repeat(100);
  for (const c of [
    check({
      projectId: P,
      name: "a name of more than thirteen",
      tags: long,
      lastStartRid: "0f0f0f0f-0000-4000-8000-000000000001",
      channels: ["c2", "c1"],
    }),
    check({ projectId: P, lastStartRid: null, channels: [] }),
  ]) {
    assert.equal(state.compact(c), c);
    assert.equal(state.compact(c), c, "twice: the shared strings found again");
  }
});

test.run();
