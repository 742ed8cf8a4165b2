import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Changes, PingWrite } from "../../engine/changes.ts";
import { noChanges } from "../../engine/changes.ts";
import { applyChanges, bulkWrites, issueBulk, mergeChanges, splitChanges } from "../../persistence/journal.ts";
import { decodeJournal, encodeJournal } from "../../persistence/journal-codec.ts";
import { openTables } from "../../persistence/open.ts";
import type { Tables } from "../../persistence/tables.ts";
import { ALL } from "../../persistence/tables.ts";
import { check, flip, ping, tempDir } from "../helpers.ts";

const changes = (overrides: Partial<Changes>): Changes => ({ ...noChanges(), ...overrides });

test("merging keeps every list in order and each check's last state", () => {
  const a = check({ nPings: 1 }),
    b = check();
  const merged = mergeChanges([
    changes({ checks: [a, b], pings: [{ projectId: "p", checkUuid: a.uuid, record: ping({ n: 1 }), body: null, keep: 5 }] }),
    changes({ checks: [{ ...a, nPings: 2 }], flips: [flip({ checkUuid: a.uuid })], deletedChecks: [{ projectId: "p", uuid: b.uuid }] }),
  ]);
  assert.equal(
    merged.checks.map((c) => [c.uuid, c.nPings]),
    [
      [b.uuid, 0],
      [a.uuid, 2],
    ],
  );
  assert.is(merged.pings.length, 1);
  assert.is(merged.flips.length, 1);
  assert.equal(merged.deletedChecks, [{ projectId: "p", uuid: b.uuid }]);
});

test("merging commits that hold hundreds of thousands of records does not overflow the stack", () => {
  const big = Array.from({ length: 300_000 }, (_, i) => check({ uuid: `u${i}` }));
  const merged = mergeChanges([changes({ checks: big, flips: big.map((c) => flip({ checkUuid: c.uuid })) }), changes({})]);
  assert.is(merged.checks.length, 300_000);
  assert.is(merged.flips.length, 300_000);
});

test("a status-only record holds patches, which decode onto the last state given, or go when it has none", () => {
  const known = check({ name: "known", status: "up", nPings: 7, nFlips: 1 }),
    unknown = check({ name: "unknown", nFlips: 1 });
  const flipped = [known, unknown].map((c) => ({ ...c, status: "down" as const, nFlips: 2 }));
  const whole = encodeJournal(changes({ checks: flipped }));
  const patched = encodeJournal(changes({ checks: flipped, statusOnly: true }));
  assert.ok(patched.length < whole.length / 2, `${patched.length} bytes against ${whole.length}`);
  const decoded = decodeJournal(patched, (projectId, uuid) => (uuid === known.uuid && projectId === known.projectId ? known : undefined));
  assert.equal(decoded.checks, [flipped[0]]);
  assert.is("statusOnly" in decoded, false);
  assert.equal(decodeJournal(whole, () => undefined).checks, flipped, "whole checks need no last state");
});

test("a state-only record (a ping's) holds patches of the state fields, which decode onto the check's config, alert included or removed", () => {
  const before = check({
    name: "nightly",
    tags: "db prod",
    status: "down",
    nPings: 4,
    nFlips: 3,
    lastPingAt: 1_000,
    lastDurationMs: 5,
    alert: { failures: 2, downSinceAt: 900, dueAt: 5_000, held: false, reminders: 1 },
  });
  const { alert: _alert, ...withoutAlert } = before;
  const pinged = {
    ...withoutAlert,
    status: "up" as const,
    nPings: 5,
    nFlips: 4,
    lastPingAt: 2_000,
    lastStartAt: null,
    lastStartRid: null,
    lastDurationMs: 7,
  };
  const counting = {
    ...pinged,
    nPings: 6,
    status: "down" as const,
    alert: { failures: 1, downSinceAt: null, dueAt: null, held: false, reminders: 0 },
  };
  for (const after of [pinged, counting]) {
    const whole = encodeJournal(changes({ checks: [after] }));
    const patched = encodeJournal(changes({ checks: [after], stateOnly: true }));
    assert.ok(patched.length < whole.length / 2, `${patched.length} bytes against ${whole.length}`);
    const decoded = decodeJournal(patched, (_projectId, uuid) => (uuid === before.uuid ? before : undefined));
    assert.equal(decoded.checks, [after]);
    assert.is("stateOnly" in decoded, false);
  }
  assert.equal(
    decodeJournal(encodeJournal(changes({ checks: [pinged], stateOnly: true })), () => undefined).checks,
    [],
    "no last state: dropped",
  );
});

test("a state-only record's pings are rows of their checks' patches, decoded to the same pings in the same order; others stay whole", () => {
  const a = check({ nPings: 2 }),
    b = check({ nPings: 8 });
  const write = (owner: typeof a, n: number, body: Uint8Array | null): PingWrite => ({
    projectId: owner.projectId,
    checkUuid: owner.uuid,
    keep: 100,
    body,
    record: ping({
      n,
      at: 1_000 * n,
      method: "POST",
      remoteAddr: "10.0.0.1",
      ua: "curl/8",
      rid: n % 2 === 0 ? "0b5e5e5e-0000-4000-8000-00000000000a" : null,
      exitStatus: n % 3 === 0 ? 1 : null,
      bodySize: body?.length ?? 0,
    }),
  });
  const lastState = (_projectId: string, uuid: string) => (uuid === a.uuid ? a : uuid === b.uuid ? b : undefined);
  // one ping per check at its own index, two of one check, one of a check the record doesn't patch, one with another shape
  const stranger = check();
  const odd = { ...write(a, 5, null), record: { ...write(a, 5, null).record, extra: 1 } as PingWrite["record"] };
  const pings = [
    write(a, 3, new Uint8Array([1, 2, 3])),
    write(b, 9, null),
    write(a, 4, new Uint8Array(0)),
    write(stranger, 1, new Uint8Array([9])),
    odd,
  ];
  const plain = changes({
    checks: [
      { ...a, nPings: 5 },
      { ...b, nPings: 9 },
    ],
    pings,
    stateOnly: true,
  });
  const encoded = encodeJournal(plain);
  const decoded = decodeJournal(encoded, lastState);
  const comparable = (list: readonly PingWrite[]) => list.map((p) => ({ ...p, body: p.body === null ? null : Array.from(p.body) })); // bodies decode as Buffers
  assert.equal(comparable(decoded.pings), comparable(pings));
  assert.equal(
    decoded.pings.map((p) => Object.keys(p.record)),
    pings.map((p) => Object.keys(p.record)),
    "the record's fields in their order",
  );
  // a ping as the shard logs it: under 60% of the record with the ping whole
  const single = changes({ checks: [{ ...a, nPings: 3 }], pings: [write(a, 3, new Uint8Array(35))], stateOnly: true });
  const asRow = encodeJournal(single).length,
    whole =
      encodeJournal({ ...single, stateOnly: false }).length -
      encodeJournal({ ...single, stateOnly: false, pings: [] }).length +
      encodeJournal({ ...single, pings: [] }).length;
  assert.ok(asRow < 0.6 * whole, `${asRow} bytes against ${whole}`);
  assert.equal(comparable(decodeJournal(encodeJournal(single), lastState).pings), comparable(single.pings));
});

test("a checkpoint split into batches of 2 leaves the tables as one application of the whole does, a check's pings across batches trimmed as one", async () => {
  const owners = ["a", "b", "c"].map((letter) => check({ uuid: `00000000-0000-4000-8000-00000000000${letter}` }));
  const list: Changes[] = [];
  for (let n = 1; n <= 9; n++) {
    const owner = owners[n % 3 === 0 ? 0 : n % 2]; // a gets every third ping, b and c the rest
    const nth = list.filter((c) => c.pings[0].checkUuid === owner.uuid).length + 1;
    list.push(
      changes({
        checks: [check({ ...owner, nPings: nth })],
        flips: n === 4 ? [flip({ checkUuid: owner.uuid, n: 1, at: 4 })] : [],
        pings: [{ projectId: owner.projectId, checkUuid: owner.uuid, keep: 2, body: new Uint8Array([n]), record: ping({ n: nth, at: n }) }],
      }),
    );
  }
  const merged = mergeChanges(list);
  const dump = (tables: Tables) =>
    Object.fromEntries(
      (["checks", "pings", "bodies", "flips"] as const).map((name) => [
        name,
        Array.from(tables[name].getRange(ALL)).map(({ key, value }) => [key, value]),
      ]),
    );
  const whole = tempDir(),
    split = tempDir();
  const a = await openTables(whole.path, { durability: "commit" }),
    b = await openTables(split.path, { durability: "commit" });
  try {
    await a.tables.env.childTransaction(() => applyChanges(a.tables, merged));
    const { bulk, rest } = splitChanges(merged, 2);
    assert.is(bulk.length, 5, "9 pings in batches of 2");
    for (const piece of bulk) {
      const writes = [...bulkWrites(b.tables, piece)]; // prepared before the batch, as a checkpoint does
      await b.tables.env.batch(() => issueBulk(writes));
    }
    await b.tables.env.childTransaction(() => applyChanges(b.tables, rest));
    assert.equal(dump(b.tables), dump(a.tables));
    assert.equal(
      Array.from(b.tables.pings.getKeys(ALL))
        .filter((k) => Array.isArray(k) && k[0] === owners[1].uuid)
        .map((k) => (k as [string, number])[1]).length,
      2,
    );
  } finally {
    await a.tables.env.close();
    await b.tables.env.close();
    whole.remove();
    split.remove();
  }
});

test("a record stores only its non-empty lists and decodes to every list", () => {
  const c = check();
  const encoded = encodeJournal(changes({ checks: [c] }));
  assert.ok(encoded.length < encodeJournal(changes({ checks: [c], projects: [], flips: [] })).length + 1);
  assert.equal(
    decodeJournal(encoded, () => undefined),
    changes({ checks: [c] }),
  );
});

test.run();
