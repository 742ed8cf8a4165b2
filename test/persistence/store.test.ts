import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Changes, OutboxEntry, PingWrite } from "../../engine/changes.ts";
import type { Check, PingRecord } from "../../engine/model.ts";
import { floorOf, slackOf } from "../../persistence/ping-log.ts";
import { openStore } from "../../persistence/store.ts";
import type { Store } from "../../persistence/store.ts";
import { channel, check, flip, ping, project, tempDir } from "../helpers.ts";

const none: Changes = { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };
const changes = (overrides: Partial<Changes>): Changes => ({ ...none, ...overrides });

/** Runs `body` against a fresh store in a temp folder, then closes and removes it. */
/**
 * Runs `body` on a fresh store whose commits also checkpoint: the tables (and so every read) then show
 * each commit as soon as it resolves. The journal itself is tested separately below.
 */
async function withStore(body: (store: Store, dir: string) => Promise<void> | void): Promise<void> {
  const dir = tempDir();
  const real = await openStore(dir.path, { durability: "commit" });
  const store = new Proxy(real, {
    get(target, name) {
      if (name === "commit")
        return async (changes: Changes) => {
          await target.commit(changes);
          await target.checkpoint();
        };
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  try {
    await body(store, dir.path);
  } finally {
    await store.close();
    dir.remove();
  }
}

function pingWrite(owner: Check, n: number, overrides: Partial<PingWrite> = {}): PingWrite {
  return { projectId: owner.projectId, checkUuid: owner.uuid, record: ping({ n, at: n * 1000 }), body: null, keep: 100, ...overrides };
}

function outboxEntry(overrides: Partial<OutboxEntry> = {}): OutboxEntry {
  const owner = check({ status: "down" });
  return {
    id: "0000000001000-x-1-c",
    projectId: owner.projectId,
    check: owner,
    flip: flip({ checkUuid: owner.uuid, to: "down" }),
    channel: channel(),
    lastPing: ping(),
    lastPingBody: null,
    projectName: "p",
    downSinceAt: null,
    attempts: 0,
    nextAttemptAt: 1000,
    lastError: null,
    ...overrides,
  };
}

test("every record kind round-trips", async () => {
  await withStore(async (store) => {
    const p = project({ name: "p1" });
    const webhook = channel({
      projectId: p.id,
      kind: "webhook",
      value: {
        kind: "webhook",
        json: true,
        spec: {
          method_down: "POST",
          url_down: "https://x/down",
          body_down: "$NAME",
          headers_down: { "X-A": "1" },
          method_up: "GET",
          url_up: "",
          body_up: "",
          headers_up: {},
        },
      },
    });
    const email = channel({ projectId: p.id });
    const c = check({
      projectId: p.id,
      status: "up",
      nPings: 1,
      lastPingAt: 5,
      channels: [email.id, webhook.id].sort(),
      lastStartRid: "r",
    });
    const record = ping({ n: 1, at: 5, kind: "fail", exitStatus: 3, rid: "r", bodySize: 3 });
    const f = flip({ checkUuid: c.uuid, at: 5, to: "up" });
    const entry = outboxEntry({ projectId: p.id });
    await store.commit(
      changes({
        projects: [p],
        channels: [webhook, email],
        checks: [c],
        pings: [{ projectId: p.id, checkUuid: c.uuid, record, body: new Uint8Array([1, 2, 3]), keep: 10 }],
        flips: [f],
        outbox: [entry],
      }),
    );
    assert.equal(store.loadProjects(), [p]);
    assert.equal(
      store.loadChannels(p.id),
      [webhook, email].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    assert.equal(store.loadChecks(p.id), [c]);
    assert.equal(store.pingPage(c.uuid, 10), [record]);
    assert.equal(store.pingBody(c.uuid, 1), new Uint8Array([1, 2, 3]));
    assert.equal(store.flips(c.uuid, {}), [f]);
    assert.equal(store.outboxAll(), [entry]);
  });
});

test("loads only the asked project's channels and checks", async () => {
  await withStore(async (store) => {
    // "a" is a prefix of "ab": their ranges must not overlap
    const [a, ab] = [project({ id: "a" }), project({ id: "ab" })];
    const checks = [check({ projectId: "a" }), check({ projectId: "ab" })];
    await store.commit(changes({ projects: [a, ab], checks, channels: [channel({ projectId: "a" })] }));
    assert.equal(store.loadChecks("a"), [checks[0]]);
    assert.equal(store.loadChecks("ab"), [checks[1]]);
    assert.equal(store.loadChannels("ab"), []);
    assert.equal(
      store.loadProjects().map((p) => p.id),
      ["a", "ab"],
    );
  });
});

test("a commit's checks, pings and flips become visible together", async () => {
  await withStore(async (store) => {
    const c = check({ nPings: 1, nFlips: 1, status: "up" });
    const committed = store.commit(changes({ checks: [c], pings: [pingWrite(c, 1)], flips: [flip({ checkUuid: c.uuid })] }));
    assert.equal(store.loadChecks(c.projectId), []); // nothing in the tables before the commit
    // the log readers include what is journaled, as the shard's memory (n_pings) already shows it
    assert.is(store.pingPage(c.uuid, 10).length, 1);
    await committed;
    assert.equal(store.loadChecks(c.projectId), [c]);
    assert.is(store.pingPage(c.uuid, 10).length, 1);
    assert.is(store.flips(c.uuid, {}).length, 1);
  });
});

test("a commit that fails midway writes nothing and later commits still work", async () => {
  await withStore(async (store) => {
    const c = check({ nPings: 1 });
    const tooLong = check({ projectId: "x".repeat(3000) }); // beyond LMDB's key size: its put throws inside the transaction
    const outcome = await store.commit(changes({ checks: [c, tooLong], pings: [pingWrite(c, 1)] })).then(
      () => "committed",
      () => "failed",
    );
    assert.is(outcome, "failed");
    assert.equal(store.loadChecks(c.projectId), []);
    assert.equal(store.pingPage(c.uuid, 10), []);
    await store.commit(changes({ checks: [c] }));
    assert.equal(store.loadChecks(c.projectId), [c]);
  });
});

test("concurrent commits in one turn are each atomic and all land", async () => {
  await withStore(async (store) => {
    const checks = Array.from({ length: 50 }, () => check({ nPings: 1 }));
    await Promise.all(checks.map((c) => store.commit(changes({ checks: [c], pings: [pingWrite(c, 1)] }))));
    assert.is(store.loadChecks("p").length, 50);
    for (const c of checks)
      assert.equal(
        store.pingPage(c.uuid, 5).map((r) => r.n),
        [1],
      );
  });
});

test("a failing commit in a group leaves the other commits of its turn intact", async () => {
  await withStore(async (store) => {
    const [a, b] = [check(), check()];
    const results = await Promise.allSettled([
      store.commit(changes({ checks: [a] })),
      store.commit(changes({ checks: [check({ projectId: "x".repeat(3000) })] })),
      store.commit(changes({ checks: [b] })),
    ]);
    assert.equal(
      results.map((r) => r.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
    assert.equal(
      store
        .loadChecks("p")
        .map((c) => c.uuid)
        .sort(),
      [a.uuid, b.uuid].sort(),
    );
  });
});

test("the ping log keeps exactly the newest `keep` entries and drops their bodies", async () => {
  await withStore(async (store) => {
    const c = check();
    const body = new Uint8Array([7]);
    for (let n = 1; n <= 10; n++) await store.commit(changes({ pings: [pingWrite(c, n, { body, keep: 3 })] }));
    assert.equal(
      store.pingPage(c.uuid, 100).map((r) => r.n),
      [10, 9, 8],
    );
    assert.is(store.pingBody(c.uuid, 7), null);
    assert.equal(store.pingBody(c.uuid, 8), body);
  });
});

test("pings of one turn are trimmed even before any of them committed", async () => {
  await withStore(async (store) => {
    const c = check();
    await Promise.all([1, 2, 3, 4].map((n) => store.commit(changes({ pings: [pingWrite(c, n, { keep: 2 })] }))));
    assert.equal(
      store.pingPage(c.uuid, 100).map((r) => r.n),
      [4, 3],
    );
    const many = [5, 6, 7].map((n) => pingWrite(c, n, { keep: 2 }));
    await store.commit(changes({ pings: many }));
    assert.equal(
      store.pingPage(c.uuid, 100).map((r) => r.n),
      [7, 6],
    );
  });
});

test("a lowered keep drops every older entry at once", async () => {
  await withStore(async (store) => {
    const c = check();
    await store.commit(changes({ pings: [1, 2, 3, 4, 5].map((n) => pingWrite(c, n, { body: new Uint8Array([n]) })) }));
    await store.commit(changes({ pings: [pingWrite(c, 6, { keep: 2 })] }));
    assert.equal(
      store.pingPage(c.uuid, 100).map((r) => r.n),
      [6, 5],
    );
    assert.equal(
      [1, 2, 3, 4].map((n) => store.pingBody(c.uuid, n)),
      [null, null, null, null],
    );
    assert.equal(store.pingBody(c.uuid, 5), new Uint8Array([5]));
  });
});

test("a raised keep lets the log grow again", async () => {
  await withStore(async (store) => {
    const c = check();
    await store.commit(changes({ pings: [1, 2, 3].map((n) => pingWrite(c, n, { keep: 2 })) }));
    await store.commit(changes({ pings: [4, 5, 6].map((n) => pingWrite(c, n, { keep: 5 })) }));
    assert.equal(
      store.pingPage(c.uuid, 100).map((r) => r.n),
      [6, 5, 4, 3, 2],
    );
  });
});

test("ping pages are newest first, limited, and per check", async () => {
  await withStore(async (store) => {
    const [a, b] = [check(), check()];
    await store.commit(changes({ pings: [...[1, 2, 3, 4].map((n) => pingWrite(a, n)), pingWrite(b, 1), pingWrite(b, 12)] }));
    const page: PingRecord[] = store.pingPage(a.uuid, 2);
    assert.equal(
      page.map((r) => r.n),
      [4, 3],
    );
    assert.equal(
      store.pingPage(b.uuid, 10).map((r) => r.n),
      [12, 1],
    ); // numeric order, not text order
    assert.equal(store.pingPage("unknown", 10), []);
  });
});

test("an empty body stores nothing and reads back as null", async () => {
  await withStore(async (store) => {
    const c = check();
    await store.commit(changes({ pings: [pingWrite(c, 1, { body: new Uint8Array(0) }), pingWrite(c, 2)] }));
    assert.is(store.pingBody(c.uuid, 1), null);
    assert.is(store.pingBody(c.uuid, 2), null);
  });
});

const flipRows: [name: string, range: { fromAt?: number; toAt?: number }, want: number[]][] = [
  ["no bounds: all, newest first", {}, [30, 20, 20, 10]],
  ["fromAt is inclusive", { fromAt: 20 }, [30, 20, 20]],
  ["toAt is exclusive", { toAt: 30 }, [20, 20, 10]],
  ["both bounds", { fromAt: 11, toAt: 21 }, [20, 20]],
  ["an empty range", { fromAt: 20, toAt: 20 }, []],
];
for (const [name, range, want] of flipRows) {
  test(`flips by time: ${name}`, async () => {
    await withStore(async (store) => {
      const c = check();
      const flips = [
        [10, 1],
        [20, 2],
        [20, 3],
        [30, 4],
      ].map(([at, n]) => flip({ checkUuid: c.uuid, at, n }));
      await store.commit(changes({ flips: [...flips, flip({ at: 15 })] })); // another check's flip stays out
      assert.equal(
        store.flips(c.uuid, range).map((f) => f.at),
        want,
      );
    });
  });
}

test("pruneFlips removes flips older than the cutoff of every check and counts them", async () => {
  await withStore(async (store) => {
    const [a, b] = [check(), check()];
    const flips = [
      [a, 10],
      [a, 20],
      [a, 30],
      [b, 5],
      [b, 25],
    ].map(([c, at], n) => flip({ checkUuid: (c as Check).uuid, at: at as number, n }));
    await store.commit(changes({ flips }));
    assert.is(await store.pruneFlips(20), 2);
    assert.equal(
      store.flips(a.uuid, {}).map((f) => f.at),
      [30, 20],
    );
    assert.equal(
      store.flips(b.uuid, {}).map((f) => f.at),
      [25],
    );
    assert.is(await store.pruneFlips(20), 0);
  });
});

test("deleting a check removes its row, pings, bodies and flips, and nothing of others", async () => {
  await withStore(async (store) => {
    const [gone, kept] = [check(), check()];
    const body = new Uint8Array([1]);
    await store.commit(
      changes({
        checks: [gone, kept],
        pings: [pingWrite(gone, 1, { body }), pingWrite(kept, 1, { body })],
        flips: [flip({ checkUuid: gone.uuid }), flip({ checkUuid: kept.uuid })],
      }),
    );
    await store.commit(changes({ deletedChecks: [{ projectId: gone.projectId, uuid: gone.uuid }] }));
    assert.equal(
      store.loadChecks("p").map((c) => c.uuid),
      [kept.uuid],
    );
    assert.equal(store.pingPage(gone.uuid, 10), []);
    assert.is(store.pingBody(gone.uuid, 1), null);
    assert.equal(store.flips(gone.uuid, {}), []);
    assert.is(store.pingPage(kept.uuid, 10).length, 1);
    assert.equal(store.pingBody(kept.uuid, 1), body);
    assert.is(store.flips(kept.uuid, {}).length, 1);
  });
});

test("a check upserted and deleted in one commit ends deleted", async () => {
  await withStore(async (store) => {
    const c = check({ nPings: 1 });
    await store.commit(changes({ checks: [c], pings: [pingWrite(c, 1)], deletedChecks: [{ projectId: c.projectId, uuid: c.uuid }] }));
    assert.equal(store.loadChecks(c.projectId), []);
    assert.equal(store.pingPage(c.uuid, 10), []);
  });
});

test("outboxDue filters while it scans: a shard's own entries come up behind any backlog of other projects'", async () => {
  await withStore(async (store) => {
    const backlog = Array.from({ length: 50 }, (_, i) =>
      outboxEntry({ id: `a${String(i).padStart(3, "0")}`, projectId: "other", nextAttemptAt: 100 }),
    );
    const ours = outboxEntry({ id: "b000", projectId: "ours", nextAttemptAt: 100 });
    await store.commit(changes({ outbox: [...backlog, ours] }));
    assert.equal(
      store.outboxDue(100, 2, (e) => e.projectId === "ours").map((e) => e.id),
      ["b000"],
    );
    assert.equal(
      store.outboxDue(100, 2).map((e) => e.id),
      ["a000", "a001"],
      "no filter: every project's",
    );
  });
});

test("outboxDue returns due entries by id, up to the limit; update and delete change them", async () => {
  await withStore(async (store) => {
    const entries = [
      ["3", 300],
      ["1", 100],
      ["2", 900],
      ["4", 50],
    ].map(([id, nextAttemptAt]) => outboxEntry({ id: id as string, nextAttemptAt: nextAttemptAt as number }));
    await store.commit(changes({ outbox: entries }));
    assert.equal(
      store.outboxDue(300, 10).map((e) => e.id),
      ["1", "3", "4"],
    );
    assert.equal(
      store.outboxDue(300, 2).map((e) => e.id),
      ["1", "3"],
    );
    await store.outboxUpdate({ ...entries[1], attempts: 1, nextAttemptAt: 1000, lastError: "refused" });
    assert.equal(
      store.outboxDue(300, 10).map((e) => e.id),
      ["3", "4"],
    );
    assert.equal(store.outboxAll().find((e) => e.id === "1")?.lastError, "refused");
    await store.outboxDelete("3");
    await store.outboxDelete("missing");
    assert.equal(
      store.outboxAll().map((e) => e.id),
      ["1", "2", "4"],
    );
  });
});

test("reopening after close restores everything", async () => {
  const dir = tempDir();
  const p = project();
  const c = check({ projectId: p.id, nPings: 2, status: "up" });
  const ch = channel({ projectId: p.id });
  const f = flip({ checkUuid: c.uuid, at: 3 });
  const entry = outboxEntry();
  const first = await openStore(dir.path, { durability: "flush" });
  await first.commit(
    changes({
      projects: [p],
      channels: [ch],
      checks: [c],
      flips: [f],
      outbox: [entry],
      pings: [pingWrite(c, 1, { body: new Uint8Array([9, 9]) }), pingWrite(c, 2)],
    }),
  );
  await first.close();
  const again = await openStore(dir.path, { durability: "flush" });
  try {
    assert.equal(again.loadProjects(), [p]);
    assert.equal(again.loadChannels(p.id), [ch]);
    assert.equal(again.loadChecks(p.id), [c]);
    assert.equal(
      again.pingPage(c.uuid, 10).map((r) => r.n),
      [2, 1],
    );
    assert.equal(again.pingBody(c.uuid, 1), new Uint8Array([9, 9]));
    assert.equal(again.flips(c.uuid, {}), [f]);
    assert.equal(again.outboxAll(), [entry]);
    again.probe();
  } finally {
    await again.close();
    dir.remove();
  }
});

test("a read-only store reads what was written", async () => {
  const dir = tempDir();
  const c = check();
  const writer = await openStore(dir.path, { durability: "commit" });
  await writer.commit(changes({ checks: [c] }));
  await writer.close();
  const reader = await openStore(dir.path, { durability: "commit", readOnly: true });
  try {
    assert.equal(reader.loadChecks(c.projectId), [c]);
  } finally {
    await reader.close();
    dir.remove();
  }
});

test("probe throws once the store is closed", async () => {
  const dir = tempDir();
  const store = await openStore(dir.path, { durability: "commit" });
  store.probe();
  await store.close();
  assert.throws(() => store.probe());
  dir.remove();
});

// ---- the journal: commits are durable at once, reach the tables at checkpoints ----

/** Runs `body` on a fresh store whose commits stay journaled until a checkpoint, then closes and removes it. */
async function withJournalStore(body: (store: Store) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const store = await openStore(dir.path, { durability: "commit" });
  try {
    await body(store);
  } finally {
    await store.close();
    dir.remove();
  }
}

test("flipNumber finds a flip by its number in the tables and in the log, newest or old, and null for one never made", async () => {
  await withJournalStore(async (store) => {
    const c = check({ nPings: 1, nFlips: 6 });
    const flips = [1, 2, 3, 4, 5].map((n) => flip({ checkUuid: c.uuid, n, at: 1_000 * n, to: n % 2 === 1 ? "up" : "down" }));
    await store.commit(changes({ checks: [c], flips }));
    await store.checkpoint();
    const logged = flip({ checkUuid: c.uuid, n: 6, at: 6_000, to: "down" });
    await store.commit(changes({ checks: [c], flips: [logged] }));
    assert.equal(store.flipNumber(c.uuid, 6), logged, "only in the log");
    assert.equal(store.flipNumber(c.uuid, 5), flips[4]);
    assert.equal(store.flipNumber(c.uuid, 1), flips[0]);
    assert.is(store.flipNumber(c.uuid, 7), null);
    assert.is(store.flipNumber("00000000-0000-4000-8000-000000000000", 1), null);
  });
});

test("a commit is journaled: the tables show it after a checkpoint, the overlay readers at once", async () => {
  await withJournalStore(async (store) => {
    const c = check({ nPings: 1, nFlips: 1 });
    const f = flip({ checkUuid: c.uuid, n: 1, to: "up" });
    await store.commit(
      changes({
        checks: [c],
        pings: [pingWrite(c, 1, { body: new Uint8Array([1, 2]), record: ping({ n: 1, at: 1000, bodySize: 2 }) })],
        flips: [f],
      }),
    );
    assert.equal(store.loadChecks(c.projectId), [], "not in the tables before a checkpoint");
    assert.is(store.newestPing(c.uuid)?.record.n, 1);
    assert.equal(store.newestPing(c.uuid)?.body, new Uint8Array([1, 2]));
    assert.equal(store.flipNumber(c.uuid, 1), f);
    await store.checkpoint();
    assert.equal(store.loadChecks(c.projectId), [c]);
    assert.equal(
      store.pingPage(c.uuid, 5).map((r) => r.n),
      [1],
    );
    assert.equal(store.newestPing(c.uuid)?.body, new Uint8Array([1, 2]), "from the tables now");
    assert.equal(store.newestPing(c.uuid, 1), store.newestPing(c.uuid), "read by its number");
    assert.equal(store.newestPing(c.uuid, 2), store.newestPing(c.uuid), "a number not logged: found by a scan");
    await store.commit(changes({ checks: [{ ...c, nPings: 2 }], pings: [pingWrite(c, 2)] }));
    await store.checkpoint();
    assert.equal(store.newestPing(c.uuid, 2), { record: ping({ n: 2, at: 2000 }), body: null }, "no body");
  });
});

test("commits a crash left in the journal are applied when the store is opened again", async () => {
  const dir = tempDir();
  const crashed = await openStore(dir.path, { durability: "commit" });
  const c = check({ nPings: 3 });
  for (let n = 1; n <= 3; n++) await crashed.commit(changes({ checks: [check({ ...c, nPings: n })], pings: [pingWrite(c, n)] }));
  // no checkpoint, no close: a second open (as after kill -9) replays the journal
  const reopened = await openStore(dir.path, { durability: "commit" });
  try {
    assert.equal(reopened.loadChecks(c.projectId), [c]);
    assert.equal(
      reopened.pingPage(c.uuid, 10).map((r) => r.n),
      [3, 2, 1],
    );
  } finally {
    await reopened.close();
    await crashed.close();
    dir.remove();
  }
});

test("deadline flips journaled as status patches replay onto the check's last state, whichever record or table holds it", async () => {
  const dir = tempDir();
  const crashed = await openStore(dir.path, { durability: "commit" });
  // a: its last state is in the tables (checkpointed); b: in an earlier record of the same replay;
  // c: deleted after its flip; d: a flip, then a ping (the ping's state wins); e: never stored (its patch is dropped)
  const a = check({ name: "a", status: "up", nPings: 4, nFlips: 1 }),
    b = check({ name: "b", status: "up", nPings: 1, nFlips: 1 });
  const c = check({ name: "c", status: "up", nFlips: 1 }),
    d = check({ name: "d", status: "up", nPings: 2, nFlips: 1 });
  await crashed.commit(changes({ checks: [a, c, d] }));
  await crashed.checkpoint();
  await crashed.commit(changes({ checks: [b] }));
  const down = (x: Check) => ({ ...x, status: "down" as const, nFlips: x.nFlips + 1 });
  const e = check({ name: "e", status: "up", nFlips: 1 });
  await crashed.commit(
    changes({
      checks: [down(a), down(b), down(c), down(d), down(e)],
      statusOnly: true,
      flips: [a, b, c, d].map((x) => flip({ checkUuid: x.uuid, n: 2, from: "up", to: "down" })),
    }),
  );
  await crashed.commit(changes({ deletedChecks: [{ projectId: c.projectId, uuid: c.uuid }] }));
  const pinged = { ...down(d), status: "up" as const, nPings: 3, nFlips: 3, lastPingAt: 5_000 };
  await crashed.commit(changes({ checks: [pinged] }));
  // no checkpoint, no close: a second open (as after kill -9) replays the journal
  const reopened = await openStore(dir.path, { durability: "commit" });
  try {
    const byName = new Map(reopened.loadChecks(a.projectId).map((x) => [x.name, x]));
    assert.equal(byName.get("a"), down(a), "patched from the tables' state");
    assert.equal(byName.get("b"), down(b), "patched from the earlier record's state");
    assert.is(byName.has("c"), false, "a deleted check stays deleted");
    assert.is(byName.has("e"), false, "a patch of an unknown check is dropped");
    assert.equal(byName.get("d"), pinged, "a later whole state wins");
    assert.equal(
      reopened.flips(a.uuid, {}).map((f) => [f.n, f.to]),
      [[2, "down"]],
    );
  } finally {
    await reopened.close();
    await crashed.close();
    dir.remove();
  }
});

test("status-only commits keep whole checks for the checkpoint and the readers of this run", async () => {
  await withJournalStore(async (store) => {
    const a = check({ name: "a", status: "up", nPings: 4, nFlips: 1, lastPingAt: 1_000 });
    await store.commit(changes({ checks: [a] }));
    await store.checkpoint();
    const down = { ...a, status: "down" as const, nFlips: 2 };
    await store.commit(changes({ checks: [down], statusOnly: true, flips: [flip({ checkUuid: a.uuid, n: 2, to: "down" })] }));
    await store.checkpoint();
    assert.equal(store.loadChecks(a.projectId), [down]);
  });
});

test("one checkpoint of many commits keeps each check's last state and never writes pings it trims", async () => {
  await withJournalStore(async (store) => {
    const c = check();
    for (let n = 1; n <= 50; n++)
      await store.commit(
        changes({ checks: [check({ ...c, nPings: n })], pings: [pingWrite(c, n, { keep: 5, body: new Uint8Array([n]) })] }),
      );
    await store.checkpoint();
    assert.equal(
      store.loadChecks(c.projectId).map((x) => x.nPings),
      [50],
    );
    assert.equal(
      store.pingPage(c.uuid, 5).map((r) => r.n),
      [50, 49, 48, 47, 46],
    );
    // the log keeps what is above its floor (44 for keep 5, slack 2): the newest 5 and one older ping
    assert.is(floorOf(50, 5), 44);
    assert.equal(
      store.pingPage(c.uuid, 100).map((r) => r.n),
      [50, 49, 48, 47, 46, 45],
    );
    assert.is(store.pingBody(c.uuid, 44), null);
    assert.equal(store.pingBody(c.uuid, 45), new Uint8Array([45]));
    assert.equal(store.pingBody(c.uuid, 46), new Uint8Array([46]));
  });
});

test("a log is trimmed in bulk, once per slack of pings: it always holds its newest keep and fewer than keep + slack", async () => {
  await withJournalStore(async (store) => {
    const c = check(),
      keep = 20,
      slack = slackOf(keep);
    assert.is(slack, 5);
    const lengths: number[] = [];
    for (let n = 1; n <= 60; n++) {
      await store.commit(changes({ checks: [check({ ...c, nPings: n })], pings: [pingWrite(c, n, { keep, body: new Uint8Array([n]) })] }));
      assert.equal(
        store.pingPage(c.uuid, keep).map((r) => r.n),
        Array.from({ length: Math.min(n, keep) }, (_, i) => n - i),
        `a page after ping ${n}`,
      );
      if (n % 3 !== 0) continue;
      await store.checkpoint(); // 3 pings a checkpoint: a trim comes with some checkpoints only
      const held = store.pingPage(c.uuid, 1_000).map((r) => r.n);
      assert.equal(
        held,
        Array.from({ length: n - floorOf(n, keep) }, (_, i) => n - i),
        `the tables after ping ${n}`,
      );
      assert.ok(held.length >= Math.min(n, keep) && held.length < keep + slack, `after ping ${n}: ${held.length} held`);
      lengths.push(held.length);
    }
    assert.ok(
      lengths.some((length) => length > keep),
      "the log runs over its keep between trims",
    );
    assert.equal(store.pingBody(c.uuid, floorOf(60, keep)), null);
    assert.equal(store.pingBody(c.uuid, floorOf(60, keep) + 1), new Uint8Array([floorOf(60, keep) + 1]));
  });
});

test("a log longer than its floor (an older build trimmed to keep exactly, or kept more) loses what is below the floor at its next trim", async () => {
  await withJournalStore(async (store) => {
    const c = check(),
      keep = 4; // slack 1: a trim with every ping
    for (let n = 1; n <= 10; n++)
      await store.commit(changes({ checks: [check({ ...c, nPings: n })], pings: [pingWrite(c, n, { keep: 100 })] }));
    await store.checkpoint(); // 10 pings held under a keep of 100
    await store.commit(changes({ checks: [check({ ...c, nPings: 11 })], pings: [pingWrite(c, 11, { keep })] }));
    await store.checkpoint();
    assert.equal(
      store.pingPage(c.uuid, 1_000).map((r) => r.n),
      [11, 10, 9, 8],
    );
  });
});

test("logs, bodies and flips read the same before, during and after a checkpoint", async () => {
  await withJournalStore(async (store) => {
    const c = check();
    for (let n = 1; n <= 4; n++) {
      await store.commit(
        changes({
          checks: [check({ ...c, nPings: n })],
          pings: [pingWrite(c, n, { keep: 3, body: new Uint8Array([n]) })],
          flips: [flip({ checkUuid: c.uuid, n, at: 1_000 * n, to: n % 2 === 1 ? "up" : "down" })],
        }),
      );
    }
    await store.checkpoint(); // n = 1..4 in the tables, 1 trimmed
    for (let n = 5; n <= 6; n++) {
      await store.commit(
        changes({
          checks: [check({ ...c, nPings: n })],
          pings: [pingWrite(c, n, { keep: 3, body: new Uint8Array([n]) })],
          flips: [flip({ checkUuid: c.uuid, n, at: 1_000 * n, to: n % 2 === 1 ? "up" : "down" })],
        }),
      );
    }
    const read = () => ({
      page: store.pingPage(c.uuid, 3).map((r) => r.n),
      body6: store.pingBody(c.uuid, 6),
      body4: store.pingBody(c.uuid, 4),
      flips: store.flips(c.uuid, { fromAt: 2_000, toAt: 6_000 }).map((f) => f.n),
      newest: store.newestPing(c.uuid)?.record.n,
      flip6: store.flipNumber(c.uuid, 6)?.at,
    });
    const want = { page: [6, 5, 4], body6: new Uint8Array([6]), body4: new Uint8Array([4]), flips: [5, 4, 3, 2], newest: 6, flip6: 6_000 };
    assert.equal(read(), want, "journaled only");
    const applying = store.checkpoint();
    assert.equal(read(), want, "while the checkpoint writes");
    await applying;
    assert.equal(read(), want, "from the tables");
  });
});

test("a checkpoint of more commits than it merges at once reads the same in every turn while it runs, and after", async () => {
  await withJournalStore(async (store) => {
    const owners = ["a", "b", "c"].map((letter) => check({ uuid: `00000000-0000-4000-8000-00000000000${letter}` }));
    // 1,200 commits of one ping each, 400 per check, all in one turn
    await Promise.all(
      Array.from({ length: 1_200 }, (_, i) => {
        const owner = owners[i % 3],
          n = Math.floor(i / 3) + 1;
        return store.commit(
          changes({ checks: [check({ ...owner, nPings: n })], pings: [pingWrite(owner, n, { keep: 5, body: new Uint8Array([n % 256]) })] }),
        );
      }),
    );
    const read = () =>
      owners.map((c) => ({
        page: store.pingPage(c.uuid, 5).map((r) => r.n),
        newest: store.newestPing(c.uuid)?.record.n,
        body: store.pingBody(c.uuid, 397),
      }));
    const want = owners.map(() => ({ page: [400, 399, 398, 397, 396], newest: 400, body: new Uint8Array([397 % 256]) }));
    assert.equal(read(), want, "logged only");
    let done = false,
      turns = 0;
    const applying = store.checkpoint().then(() => {
      done = true;
    });
    while (!done) {
      assert.equal(read(), want, `turn ${turns} of the checkpoint`);
      await new Promise((resolve) => setImmediate(resolve));
      turns += 1;
    }
    await applying;
    assert.equal(read(), want, "from the tables");
    assert.equal(
      store.loadChecks(owners[0].projectId).map((c) => c.nPings),
      [400, 400, 400],
    );
  });
});

test("a checkpoint of many checks applies every check and ping, trims as one would, and deletes what the same checkpoint wrote", async () => {
  await withJournalStore(async (store) => {
    const owners = Array.from({ length: 300 }, (_, i) => check({ uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}` }));
    for (let n = 1; n <= 4; n++) {
      await store.commit(
        changes({
          checks: owners.map((c) => check({ ...c, nPings: n })),
          pings: owners.map((c) => pingWrite(c, n, { keep: 3, body: new Uint8Array([n]) })),
          flips: [flip({ checkUuid: owners[7].uuid, n, at: 1_000 * n })],
        }),
      );
    }
    await store.commit(changes({ deletedChecks: [{ projectId: owners[7].projectId, uuid: owners[7].uuid }] }));
    await store.checkpoint(); // 1,200 pings and 300 checks in one batch, then the deletion
    const kept = owners.filter((_, i) => i !== 7);
    assert.equal(
      store.loadChecks(owners[0].projectId).map((c) => [c.uuid, c.nPings]),
      kept.map((c) => [c.uuid, 4]),
    );
    for (const c of [owners[0], owners[149], owners[299]])
      assert.equal(
        store.pingPage(c.uuid, 10).map((r) => r.n),
        [4, 3, 2],
      );
    assert.equal(store.pingBody(owners[299].uuid, 2), new Uint8Array([2]));
    assert.equal(store.pingPage(owners[7].uuid, 10), []);
    assert.is(store.pingBody(owners[7].uuid, 4), null);
    assert.equal(store.flips(owners[7].uuid, {}), []);
  });
});

test("commits another thread's replay applied are not applied again: a delivered notification stays gone", async () => {
  const dir = tempDir();
  const writer = await openStore(dir.path, { durability: "commit" });
  const c = check({ nPings: 1 });
  const entry = outboxEntry();
  await writer.commit(changes({ checks: [c], pings: [pingWrite(c, 1)], outbox: [entry] }));
  // a second open (another shard starting) replays the writer's journal while the writer lives
  const other = await openStore(dir.path, { durability: "commit" });
  try {
    assert.equal(
      other.outboxAll().map((e) => e.id),
      [entry.id],
    );
    await other.outboxDelete(entry.id); // delivered
    await writer.checkpoint();
    assert.equal(writer.outboxAll(), [], "not resurrected by the writer's checkpoint");
    assert.equal(writer.loadChecks(c.projectId), [c]);
    assert.equal(
      writer.pingPage(c.uuid, 5).map((r) => r.n),
      [1],
    );
    await writer.close();
    const reopened = await openStore(dir.path, { durability: "commit" });
    assert.equal(reopened.outboxAll(), [], "nor by a replay after a restart");
    await reopened.close();
  } finally {
    await other.close();
    dir.remove();
  }
});

test("a commit with an unstorable key is refused before it reaches the journal", async () => {
  const dir = tempDir();
  const store = await openStore(dir.path, { durability: "commit" });
  try {
    const outcome = await store.commit(changes({ checks: [check({ projectId: "x".repeat(3000) })] })).then(
      () => "ok",
      (e: Error) => e.message,
    );
    assert.match(String(outcome), /refused/);
    await store.checkpoint(); // nothing poisoned: a checkpoint still works
    const reopened = await openStore(dir.path, { durability: "commit" });
    await reopened.close();
  } finally {
    await store.close();
    dir.remove();
  }
});

test.run();
