// Fault injection in the style of Jepsen, real processes only: three nats-server (JetStream, R3) and three
// hcd nodes behind relays. Ping load with a fresh rid per ping goes to all nodes while a seeded schedule
// (test/stress/fault-schedule.ts) kills a node with -9 and starts it again, pauses a partition's owner
// (SIGSTOP) for longer than its lease, kills and restarts a nats-server, cuts a node's NATS connections and
// slows them. Once every fault is healed, test/cluster/history-checker.ts judges what was recorded: every
// acknowledged ping in its check's log exactly once, no rid twice, n_pings equal to the log, every node the
// same dump of every project, flips in order and alternating, no check pinged on time down, and the two
// starved checks down at their due time.
// HCD_CHECKER_SEED=<n> replays a run (runs after the first take n+1, n+2, ...); HCD_CHECKER_RUNS=<k> runs
// k of them (default 1); each run prints its seed first.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { partitionOf } from "../../cluster/partitions.ts";
import type { CheckHistory } from "../cluster/history-checker.ts";
import { violationsOf } from "../cluster/history-checker.ts";
import { haveProgram } from "../ops/extras.ts";
import type { ProjectJson } from "../security/real-server.ts";
import { call, createProject, dumpProject, ok } from "../security/real-server.ts";
import type { CheckerCluster } from "./checker-cluster.ts";
import { NODES, startCheckerCluster } from "./checker-cluster.ts";
import { describeRound, faultSchedule } from "./fault-schedule.ts";
import type { Round } from "./fault-schedule.ts";

const HAVE_NATS = haveProgram("nats-server", "the cluster fault-injection checker");
const TOKEN = "cluster-checker-admin-token-0123456789";
const PARTITIONS = 8;
const LEASE_MS = 6_000; // cluster/ownership.ts's default lease, which the nodes run with
const GRACE_MS = 90_000; // the starved checks' grace: they go down inside the run, after the quiet time below
/**
 * Faults end this long before the starved checks' due time, so their partitions have an owner again when
 * they fall due (had a partition no owner at the due time, the downtime rule would rightly hold the check
 * another grace, past the run's end). A takeover takes at most 15 s (CONTRACT "Cluster mode") once NATS
 * serves the partition's streams; after a nats-server's loss, Debian's 2.9.10 has taken up to about 35 s
 * to elect their leaders again here, hence the margin.
 */
const QUIET_BEFORE_DUE_MS = 45_000;
/** The API's timestamps are whole seconds: a flip stamped at its due time reads up to 1 s either side of it. */
const DUE_TOLERANCE_MS = 1_000;
const PING_TIMEOUT_MS = 3_000; // a ping to a paused node is given up (not acknowledged) after this
const MAX_PINGS = 900; // per check: its log (1,000) holds every one, so the log is its whole history
const RUNS = Number(process.env.HCD_CHECKER_RUNS ?? 1);
const FIRST_SEED = process.env.HCD_CHECKER_SEED !== undefined ? Number(process.env.HCD_CHECKER_SEED) : Math.floor(Math.random() * 2 ** 31);

type Check = { uuid: string; project: ProjectJson; sent: string[]; acked: string[]; starved?: { dueFrom: number; dueTo: number } };

for (let run = 0; run < RUNS; run++) {
  const seed = FIRST_SEED + run;
  test(`cluster checker, run ${run + 1} of ${RUNS}, seed ${seed} (HCD_CHECKER_SEED=${seed} replays it)`, async () => {
    if (!HAVE_NATS) return;
    console.log(`  cluster checker: seed ${seed}`);
    await checkerRun(seed);
  });
}

async function checkerRun(seed: number): Promise<void> {
  const cluster = await startCheckerCluster({ token: TOKEN, partitions: PARTITIONS, siteRoot: "http://hcd.checker.test" });
  let loadRunning = false;
  let load: Promise<unknown> = Promise.resolve();
  try {
    const url = (i: number) => cluster.node(i).url;
    const projects: ProjectJson[] = [];
    const checks: Check[] = [];
    for (let p = 0; p < 4; p++) {
      const project = await createProject(cluster.node(p % 3), TOKEN, { name: `project-${p}`, ping_log_limit: 1000 });
      projects.push(project);
      for (let c = 0; c < 3; c++) checks.push(await createCheck(url((p + c + 1) % 3), project, `check-${p}-${c}`, 3600));
    }
    // starved: a run started and never finished goes down at its start plus its grace
    const starved = [
      await createCheck(url(1), projects[0], "starved-0", GRACE_MS / 1000),
      await createCheck(url(2), projects[2], "starved-2", GRACE_MS / 1000),
    ];
    for (const check of starved) {
      const rid = randomUUID();
      check.sent.push(rid);
      const before = Date.now();
      assert.is((await call(url(0), "GET", `/ping/${check.uuid}/start?rid=${rid}`)).status, 200);
      check.acked.push(rid);
      check.starved = { dueFrom: before + GRACE_MS, dueTo: Date.now() + GRACE_MS };
    }
    const faultsUntil = starved[0].starved!.dueFrom - QUIET_BEFORE_DUE_MS;
    const partitions = [...new Set(projects.map((p) => partitionOf(p.id, PARTITIONS)))];

    // the load: every ping a fresh rid, sent to the nodes in turn, a project's checks at once (one partition:
    // the node forwards them to its owner together, as a batch that a fault can cut in two); a node being
    // restarted is skipped
    const statuses = new Map<string, number>();
    const ping = async (check: Check, node: number): Promise<number> => {
      const server = cluster.node(node);
      if (!server.alive()) return -1;
      const rid = randomUUID();
      check.sent.push(rid);
      const status = await fetch(`${server.url}/ping/${check.uuid}?rid=${rid}`, { signal: AbortSignal.timeout(PING_TIMEOUT_MS) }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        () => 0,
      );
      statuses.set(`${NODES[node]} ${status}`, (statuses.get(`${NODES[node]} ${status}`) ?? 0) + 1);
      if (status === 200) check.acked.push(rid);
      return status;
    };
    loadRunning = true;
    let turn = 0;
    load = Promise.all(
      [0, 1, 2, 3].map(async (w) => {
        while (loadRunning) {
          const n = turn++;
          const project = projects[(n + w) % projects.length];
          const burst = checks.filter((c) => c.project === project && c.sent.length < MAX_PINGS);
          const answers = await Promise.all(burst.map((check) => ping(check, n % 3)));
          if (answers.length === 0 || answers.includes(-1)) await pause(50);
          await pause(40);
        }
      }),
    );

    // the faults, one round after another, as long as they end before the quiet time
    const rounds = faultSchedule(seed, { partitions: partitions.length, leaseMs: LEASE_MS });
    rounds.forEach((round, i) => console.log(`  round ${i + 1}: ${describeRound(round)}`));
    const ran: string[] = [];
    for (const [i, round] of rounds.entries()) {
      if (Date.now() + round.afterMs + round.fault.holdMs + 5_000 > faultsUntil) {
        ran.push(`round ${i + 1} left out: no time before the quiet`);
        continue;
      }
      await pause(round.afterMs);
      const started = Date.now();
      const what = await inject(cluster, round, partitions);
      ran.push(`round ${i + 1}: ${what}, healed after ${Date.now() - started} ms`);
    }
    ran.forEach((line) => console.log(`  ${line}`));

    // healed: every node acknowledges a ping to every project again (its partition has an owner)
    const healStarted = Date.now();
    for (let node = 0; node < 3; node++) {
      for (const project of projects) {
        const check = checks.find((c) => c.project === project)!;
        await waitFor(
          async () => ((await ping(check, node)) === 200 ? true : undefined),
          120_000,
          `node ${NODES[node]} acknowledging pings of ${project.name}`,
        );
      }
    }
    const healedAt = Date.now();
    console.log(
      `  healed ${healedAt - healStarted} ms after the last round, ${Math.round((starved[0].starved!.dueFrom - healedAt) / 1000)} s before the starved checks' due time`,
    );
    assert.ok(
      healedAt < starved[0].starved!.dueFrom - LEASE_MS,
      "the cluster healed too late for the starved checks' due time to fall with an owner serving",
    );

    // the starved checks' down flips: the due time passed, then seen by a node
    while (Date.now() < Math.max(...starved.map((c) => c.starved!.dueTo)) + 2 * DUE_TOLERANCE_MS) await pause(250);
    for (const check of starved) {
      await waitFor(
        async () => {
          const flips = await ok<{ up: number }[]>(
            call(url(0), "GET", `/api/v3/checks/${check.uuid}/flips/`, { key: check.project.api_key }),
          );
          return flips.some((f) => f.up === 0) || undefined;
        },
        30_000,
        `starved check ${check.uuid} down`,
      );
    }
    loadRunning = false;
    await load;

    // read back: every node's dump of every project; node a's for the logs, counts and flips
    const dumps = [];
    const read = new Map<string, { log: (string | null)[]; nPings: number; flips: { at: number; up: boolean }[] }>();
    for (const project of projects) {
      const byNode: Record<string, string> = {};
      for (let node = 0; node < 3; node++) byNode[NODES[node]] = await dumpProject(url(node), project);
      dumps.push({ project: project.name, byNode });
      const { details } = JSON.parse(byNode.a) as {
        details: {
          check: { uuid: string; n_pings: number };
          pings: { rid?: string | null }[];
          flips: { timestamp: string; up: number }[];
        }[];
      };
      for (const { check, pings, flips } of details) {
        read.set(check.uuid, {
          log: pings.map((p) => p.rid ?? null),
          nPings: check.n_pings,
          flips: flips.map((f) => ({ at: Date.parse(f.timestamp), up: f.up === 1 })),
        });
      }
    }
    const histories: CheckHistory[] = [...checks, ...starved].map((c) => ({
      uuid: c.uuid,
      sent: c.sent,
      acked: c.acked,
      starved: c.starved,
      ...read.get(c.uuid)!,
    }));
    const violations = violationsOf({ checks: histories, dumps, dueToleranceMs: DUE_TOLERANCE_MS });
    const acked = histories.reduce((n, c) => n + c.acked.length, 0),
      sent = histories.reduce((n, c) => n + c.sent.length, 0);
    console.log(
      `  seed ${seed}: ${acked} of ${sent} pings acknowledged, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; ${violations.length} violation(s)`,
    );
    for (const v of violations) console.log(`  VIOLATION ${v.kind} ${v.subject}: ${v.detail}`);
    assert.equal(cluster.unexpectedExits(), [], "every node exit was one the test caused");
    assert.equal(
      violations.map((v) => `${v.kind} ${v.subject}`),
      [],
      `seed ${seed}: violations`,
    );
    assert.ok(acked >= 200, `only ${acked} pings acknowledged`); // the load ran, so the checker had something to judge
  } catch (error) {
    console.log(`  seed ${seed} failed; replay with HCD_CHECKER_SEED=${seed}`);
    cluster.reportLogs();
    throw error;
  } finally {
    loadRunning = false;
    await load;
    await cluster.close();
  }
}

async function createCheck(url: string, project: ProjectJson, name: string, graceSeconds: number): Promise<Check> {
  const made = await ok<{ uuid: string }>(
    call(url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name, timeout: 3600, grace: graceSeconds } }),
  );
  return { uuid: made.uuid, project, sent: [], acked: [] };
}

/** Injects one round's fault, holds it, heals it; returns what was done. */
async function inject(cluster: CheckerCluster, round: Round, partitions: readonly number[]): Promise<string> {
  const { fault } = round;
  switch (fault.kind) {
    case "kill-node": {
      const server = cluster.node(fault.node);
      cluster.expectExit(fault.node);
      server.child.kill("SIGKILL");
      await server.exited;
      await pause(fault.holdMs);
      await cluster.start(fault.node);
      return `node ${NODES[fault.node]} killed and started again`;
    }
    case "stop-owner": {
      const partition = partitions[fault.partition];
      // just after another fault the partition may be between owners: its next one is paused
      const owner = await waitFor(
        async () => (await cluster.ownerOf(partition)) ?? undefined,
        LEASE_MS,
        `an owner of partition ${partition}`,
      ).catch(() => null);
      const index = NODES.indexOf(owner as (typeof NODES)[number]);
      if (index < 0) return `partition ${partition} had no owner to pause`;
      const server = cluster.node(index);
      server.child.kill("SIGSTOP");
      await pause(fault.holdMs);
      server.child.kill("SIGCONT");
      return `node ${owner}, owner of partition ${partition}, paused`;
    }
    case "kill-nats":
      await cluster.nats.stop(fault.server, "SIGKILL");
      await pause(fault.holdMs);
      await cluster.nats.restart(fault.server);
      return `nats-server ${fault.server + 1} killed and started again`;
    case "cut-relay":
      await Promise.all(cluster.relays[fault.node].map((r) => r.cut()));
      await pause(fault.holdMs);
      await Promise.all(cluster.relays[fault.node].map((r) => r.restore()));
      return `node ${NODES[fault.node]} cut off from NATS`;
    case "slow-relay":
      for (const r of cluster.relays[fault.node]) r.slow(fault.delayMs);
      await pause(fault.holdMs);
      for (const r of cluster.relays[fault.node]) r.slow(0);
      return `node ${NODES[fault.node]} slowed`;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the first defined value of `probe`, asked every 250 ms; fails after `ms`. */
async function waitFor<T>(probe: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`waited ${ms} ms for ${what}`);
    await pause(250);
  }
}

test.run();
