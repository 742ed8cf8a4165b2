// The second part of alerting in cluster mode, against one real nats-server: max_duration, depends_on
// and an acknowledgement travel in a partition's log like every other command, so the next owner's
// replay holds exactly what the first owner held, and goes on from there the same way.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import { project } from "../helpers.ts";
import { pingOf, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITION = 7;
const MINUTE = 60 * SECOND;
let ids = 0;
const newId = () => `00000000-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`;

test("a takeover replays max_duration, depends_on and an acknowledgement; the new owner holds and releases as the old one would", async () => {
  await withNatsServer("alerting through a partition's log", async (connect) => {
    const a = await PartitionReplica.open({ connection: await connect(), partition: PARTITION, replicas: 1, newId });
    await a.takeOver(T0);
    const owner = project({ id: newId(), createdAt: T0 });
    await a.submit({ kind: "createProject", project: owner, at: T0 });
    const create = async (name: string, spec: Record<string, unknown>) => {
      const { result } = await a.submit({
        kind: "createCheck",
        projectId: owner.id,
        spec: { name, timeoutMs: MINUTE, graceMs: MINUTE, ...spec },
        unique: [],
        at: T0,
      });
      assert.ok(result.ok, name);
      return result.value.check.uuid;
    };
    const db = await create("db", { reminderIntervalMs: 5 * MINUTE });
    const job = await create("job", { dependsOn: [db], maxDurationMs: MINUTE });
    await a.submit(pingOf(db, T0 + SECOND));
    await a.submit({ kind: "ping", ping: { ...pingOf(job, T0 + SECOND).ping, signal: "start" } }); // a run that never ends
    await a.advance(T0 + 3 * MINUTE); // db down at T0 + 121 s; the job's run too long at T0 + 61 s
    const ack = await a.submit({ kind: "acknowledgeCheck", projectId: owner.id, uuid: db, by: "api", at: T0 + 3 * MINUTE });
    assert.ok(ack.result.ok);
    const before = a.read((shard) => shard.snapshot().checks);
    a.abandon();

    const b = await PartitionReplica.open({ connection: await connect(), partition: PARTITION, replicas: 1, newId });
    await b.takeOver(T0 + 3 * MINUTE);
    const after = b.read((shard) => shard.snapshot().checks);
    assert.equal(after, before, "the next owner holds exactly what the first held");
    const byName = (name: string) => after.find((c) => c.name === name)!;
    assert.equal([byName("db").status, byName("db").alert?.acknowledged?.by], ["down", "api"]);
    assert.equal([byName("job").status, byName("job").alert?.heldBy], ["down", db]);
    // acknowledged: no reminder at T0 + 121 s + 5 min; the dependency up again releases the job's down notification
    const reminders = await b.advance(T0 + 10 * MINUTE);
    assert.equal(reminders.changes.outbox, []);
    const up = await b.submit(pingOf(db, T0 + 10 * MINUTE + SECOND));
    const released = b.read((shard) => shard.getCheck(owner.id, job));
    assert.ok(released.ok);
    assert.is(released.value.alert?.heldBy, undefined, "released once its dependency is up");
    assert.equal(
      up.changes.flips.map((f) => [f.checkUuid, f.to]),
      [[db, "up"]],
    );
  });
});

test("an escalation step planned by one owner is fired once by the next, and never again by a third (the third part)", async () => {
  await withNatsServer("escalation through a partition's log", async (connect) => {
    const a = await PartitionReplica.open({ connection: await connect(), partition: PARTITION + 1, replicas: 1, newId });
    await a.takeOver(T0);
    const owner = project({ id: newId(), createdAt: T0 });
    await a.submit({ kind: "createProject", project: owner, at: T0 });
    for (const name of ["ops", "pager"]) {
      await a.submit({
        kind: "addChannel",
        channel: {
          id: name,
          projectId: owner.id,
          name,
          kind: "email",
          value: { kind: "email", address: `${name}@example.com` },
          createdAt: T0,
        },
        at: T0,
      });
    }
    const { result } = await a.submit({
      kind: "createCheck",
      projectId: owner.id,
      unique: [],
      at: T0,
      spec: {
        name: "job",
        timeoutMs: MINUTE,
        graceMs: MINUTE,
        channels: { refs: ["ops"] },
        escalation: [{ afterMs: 15 * MINUTE, channels: { refs: ["pager"] } }],
      },
    });
    assert.ok(result.ok);
    const uuid = result.value.check.uuid;
    const down = await a.submit({ ...pingOf(uuid, T0 + SECOND), ping: { ...pingOf(uuid, T0 + SECOND).ping, signal: "fail" } });
    assert.equal(
      down.changes.outbox.map((e) => e.channel.id),
      ["ops"],
    );
    await a.advance(T0 + 10 * MINUTE); // the step is due at T0 + 15 min 1 s: not yet
    a.abandon();

    const b = await PartitionReplica.open({ connection: await connect(), partition: PARTITION + 1, replicas: 1, newId });
    await b.takeOver(T0 + 10 * MINUTE);
    assert.equal((await b.advance(T0 + 15 * MINUTE)).changes.outbox, []);
    const step = await b.advance(T0 + 20 * MINUTE);
    assert.equal(
      step.changes.outbox.map((e) => [e.channel.id, e.escalation, e.flip.at]),
      [["pager", 1, T0 + 15 * MINUTE + SECOND]],
    );
    b.abandon();

    const c = await PartitionReplica.open({ connection: await connect(), partition: PARTITION + 1, replicas: 1, newId });
    const report = await c.takeOver(T0 + 30 * MINUTE);
    assert.equal(report.flips, []);
    assert.equal((await c.advance(T0 + 60 * MINUTE)).changes.outbox, [], "not sent again");
    assert.is(
      c.read((shard) => shard.getCheck(owner.id, uuid)).ok &&
        c.read((shard) => shard.listChecks(owner.id, { tags: [] })[0].alert?.escalated),
      1,
    );
  });
});

test.run();
