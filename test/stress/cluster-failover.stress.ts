// Cluster mode end to end, real processes only: three nats-server processes as one JetStream cluster and
// three hcd nodes (`node dist/app/main.js` with NATS_URL), each reaching the servers through TCP relays
// the test can cut (the servers don't advertise each other, so a node knows only its relays). Under ping
// load spread over all three nodes:
//   1. the node owning the "deadline" check's partition is killed (SIGKILL) 40 s before the check's due
//      time: another node takes the partition over, and the check goes down at its due time (not at the
//      takeover's), and the local webhook receiver hears of it;
//   2. one NATS server is stopped (SIGKILL);
//   3. both come back: the killed node and the NATS server;
//   4. a node is cut off from NATS (its relays drop every connection and refuse new ones): it answers
//      pings 503 instead of acknowledging what it can't replicate, while the other two go on; then its
//      relays come back.
// Afterwards every acknowledged ping is in its check's log, once (the load sends each once, with a rid of
// its own), n_pings counts the log (no ping is counted that the log does not hold), and every node answers
// the API the same (the same dump of every project).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { decodeLease } from "../../cluster/leases.ts";
import { partitionOf } from "../../cluster/partitions.ts";
import { haveProgram } from "../ops/extras.ts";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { addChannel, call, createProject, dumpProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { faultRelay } from "./fault-relay.ts";
import { startNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "cluster failover of three hcd nodes");
const TOKEN = "cluster-failover-admin-token-0123456789";
const PARTITIONS = 8;
const SITE_ROOT = "http://hcd.cluster.test";
const NODES = ["a", "b", "c"] as const;
const PROJECTS = 6,
  CHECKS_PER_PROJECT = 3;
const MAX_PINGS = 950; // per check: its log (1,000) holds every one

test("three nodes: a node killed, a NATS server lost, a node cut off; no acknowledged ping lost, deadlines at their due time", async () => {
  if (!HAVE_NATS) return;
  const nats = await startNatsCluster({ size: 3, noAdvertise: true }); // a node reaches NATS only through its relays
  const receiver = await httpReceiver(() => ({ status: 200 }));
  // each node's relays to the three servers, its own server first (as nodes on different machines would)
  const relays = await Promise.all(
    NODES.map((_, i) => Promise.all([0, 1, 2].map((k) => faultRelay({ host: "127.0.0.1", port: nats.servers[(i + k) % 3].clientPort })))),
  );
  const dirs = NODES.map(() => tempDir("hcd-cluster-node-"));
  const servers = new Map<string, RealServer>();
  const started: { name: string; server: RealServer }[] = []; // every process started, a killed one's output too
  const natsUrlOf = (i: number) => relays[i].map((r) => r.url).join(",");
  const start = async (i: number) => {
    const server = await startServer({
      dataDir: dirs[i].path,
      env: {
        NATS_URL: natsUrlOf(i),
        NODE_ID: NODES[i],
        ADMIN_TOKEN: TOKEN,
        SITE_ROOT,
        CLUSTER_PARTITIONS: String(PARTITIONS),
        CLUSTER_REPLICAS: "3",
        INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
        API_RATE_LIMIT: "0",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
      },
    });
    servers.set(NODES[i], server);
    started.push({ name: NODES[i], server });
    return server;
  };
  const watcher = await connect({ servers: nats.urls, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  let loadRunning = false;
  try {
    for (let i = 0; i < NODES.length; i++) await start(i);
    const nodeUrl = (name: string) => servers.get(name)!.url;
    const ownerOf = async (p: number) => {
      const message = await (
        await managerOf(watcher)
      ).streams.getMessage(`KV_hcd-owner-${p}`, { last_by_subj: `$KV.hcd-owner-${p}.owner` });
      return message === null ? null : (decodeLease(message.data)?.node ?? null);
    };
    // the set-up's writes wait until the partitions are shared out: one that reaches a node just as it hands
    // its partition to a node joining may time out (a 503, as docs/cluster.md says), and the set-up is not what is tested
    await waitFor(
      async () => {
        const owners = await Promise.all(Array.from({ length: PARTITIONS }, (_, p) => ownerOf(p)));
        return NODES.every((node) => owners.filter((o) => o === node).length >= Math.floor(PARTITIONS / NODES.length)) ? true : undefined;
      },
      60_000,
      "the partitions shared out over the three nodes",
    );
    const anyUrl = () => [...servers.values()].find((s) => s.alive())!.url;

    // projects over several partitions, three checks each, every project notifying the receiver
    const projects: ProjectJson[] = [];
    const checks: { uuid: string; project: ProjectJson }[] = [];
    for (let p = 0; p < PROJECTS; p++) {
      const server = servers.get(NODES[p % 3])!;
      const project = await createProject(server, TOKEN, { name: `project-${p}`, ping_log_limit: 1000 });
      await addChannel(server, TOKEN, project.id, {
        kind: "webhook",
        name: "hook",
        value: {
          method_down: "GET",
          url_down: `${receiver.url}/down/$CODE`,
          method_up: "GET",
          url_up: `${receiver.url}/up/$CODE`,
        },
      });
      projects.push(project);
      for (let c = 0; c < CHECKS_PER_PROJECT; c++) {
        // created through another node than the project: the directory is every node's
        const made = await ok<{ uuid: string }>(
          call(nodeUrl(NODES[(p + c + 1) % 3]), "POST", "/api/v3/checks/", {
            key: project.api_key,
            body: { name: `check-${p}-${c}`, timeout: 3600, grace: 3600, channels: "*" },
          }),
        );
        checks.push({ uuid: made.uuid, project });
      }
    }
    // the deadline check: timeout and grace at their minimum, so it is down 120 s after its ping
    const deadlineProject = projects[0];
    const deadline = await ok<{ uuid: string }>(
      call(nodeUrl("b"), "POST", "/api/v3/checks/", {
        key: deadlineProject.api_key,
        body: { name: "deadline", timeout: 60, grace: 60, channels: "*" },
      }),
    );
    assert.is((await call(nodeUrl("c"), "GET", `/ping/${deadline.uuid}`)).status, 200);
    const pingedAt = Date.parse(
      (await ok<{ last_ping: string }>(call(nodeUrl("a"), "GET", `/api/v3/checks/${deadline.uuid}`, { key: deadlineProject.api_key })))
        .last_ping,
    );
    const dueAt = pingedAt + 120_000;

    // ping load: every ping a fresh rid; acknowledged ones are remembered by check
    const acked = new Map<string, Set<string>>(checks.map((c) => [c.uuid, new Set<string>()]));
    const attempts = new Map<string, number>(checks.map((c) => [c.uuid, 0]));
    const statuses = new Map<string, number>(); // "node status" → count
    let phase = "before"; // the acknowledgements of each phase: the load runs through every event
    const phaseAcks = new Map<string, number>();
    loadRunning = true;
    let sent = 0;
    const worker = async (w: number) => {
      while (loadRunning) {
        const check = checks[(sent + w) % checks.length];
        const node = NODES[sent++ % 3];
        const server = servers.get(node);
        if (server === undefined || !server.alive()) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        if ((attempts.get(check.uuid) ?? 0) >= MAX_PINGS) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        } // its log is full
        const rid = randomUUID();
        attempts.set(check.uuid, (attempts.get(check.uuid) ?? 0) + 1);
        const status = await call(server.url, "GET", `/ping/${check.uuid}?rid=${rid}`).then(
          (a) => a.status,
          () => 0,
        );
        statuses.set(`${node} ${status}`, (statuses.get(`${node} ${status}`) ?? 0) + 1);
        if (status === 200) {
          acked.get(check.uuid)!.add(rid);
          phaseAcks.set(phase, (phaseAcks.get(phase) ?? 0) + 1);
        }
        await new Promise((r) => setTimeout(r, 80));
      }
    };
    const load = Promise.all([0, 1, 2].map(worker));

    // 1. kill the deadline check's owner 40 s before its due time: time for another node to take its
    // partition over first on a busy machine, so the check is judged by the new owner at its due time
    const partition = partitionOf(deadlineProject.id, PARTITIONS);
    // the JetStream cluster takes a while to elect new leaders for every stream after a server's loss (seen
    // here: 15-25 s for one bucket; a partition's takeover waits on several streams): generous bounds
    const acksWhile = (during: string) =>
      waitFor(() => ((phaseAcks.get(during) ?? 0) >= 30 ? true : undefined), 150_000, `30 pings acknowledged while ${during}`);
    const victim = await ownerOf(partition);
    assert.ok(victim !== null && NODES.includes(victim as never), `partition ${partition} owned by ${victim}`);
    const victimIndex = NODES.indexOf(victim as (typeof NODES)[number]);
    assert.ok(Date.now() < dueAt - 40_000, `the set-up took until ${Math.round((dueAt - Date.now()) / 1000)} s before the due time`);
    while (Date.now() < dueAt - 40_000) await new Promise((r) => setTimeout(r, 200));
    servers.get(victim)!.child.kill("SIGKILL");
    await servers.get(victim)!.exited;
    const killedAt = Date.now();
    phase = "node killed";

    // the check goes down at its due time, and the receiver hears of it
    const down = await waitFor(
      () => receiver.requests.find((r) => r.path === `/down/${deadline.uuid}`),
      90_000,
      "the deadline check's down notification",
    );
    assert.ok(down !== undefined);
    // the notification may be delivered (by any node) a moment before the flip is stored in the history
    // that the API reads: both are effects of the same record, the notification's queued first
    const downFlip = await waitFor(
      async () => {
        const flips = await ok<{ timestamp: string; up: number }[]>(
          call(anyUrl(), "GET", `/api/v3/checks/${deadline.uuid}/flips/`, { key: deadlineProject.api_key }),
        );
        return flips.find((f) => f.up === 0);
      },
      30_000,
      "the down flip in the API",
    );
    assert.ok(
      Math.abs(Date.parse(downFlip.timestamp) - dueAt) <= 1_000,
      `down at ${downFlip.timestamp}, due ${new Date(dueAt).toISOString()}`,
    );
    await acksWhile(phase); // the two nodes left serve every partition

    // 2. one NATS server lost
    await nats.stop(0, "SIGKILL");
    phase = "NATS server lost";
    await acksWhile(phase);

    // 3. both back
    await nats.restart(0);
    await start(victimIndex);
    for (const node of NODES) {
      await waitFor(
        async () => (await call(nodeUrl(node), "GET", `/ping/${checks[0].uuid}`)).status === 200 || undefined,
        120_000,
        `node ${node} acknowledging again`,
      );
    }
    phase = "restored";
    await acksWhile(phase);

    // 4. a node cut off: its pings are answered 503, never acknowledged, while the others go on; then back
    const cutIndex = (victimIndex + 1) % 3,
      cut = NODES[cutIndex];
    await Promise.all(relays[cutIndex].map((r) => r.cut()));
    phase = "node cut off";
    await waitFor(
      async () => (await call(nodeUrl(cut), "GET", `/ping/${checks[0].uuid}`)).status === 503 || undefined,
      30_000,
      "a 503 from the cut-off node",
    );
    for (let i = 0; i < 5; i++) assert.is((await call(nodeUrl(cut), "GET", `/ping/${checks[i % checks.length].uuid}`)).status, 503);
    await acksWhile(phase); // the other nodes go on acknowledging

    await Promise.all(relays[cutIndex].map((r) => r.restore()));
    phase = "reconnected";
    await waitFor(
      async () => (await call(nodeUrl(cut), "GET", `/ping/${checks[0].uuid}`)).status === 200 || undefined,
      120_000,
      `node ${cut} acknowledging again`,
    );
    await acksWhile(phase);
    loadRunning = false;
    await load;

    // every acknowledged ping in its check's log; n_pings counts the log. Read once each partition has an
    // owner again: after these faults a partition's stream may take a while to elect a leader, during which
    // its reads answer 503 (the time it took is printed below; availability is asserted by the phases above)
    const settledFrom = Date.now();
    const answered = async <T>(path: string, key: string) =>
      waitFor(
        async () => {
          const answer = await call(anyUrl(), "GET", path, { key });
          return answer.status === 200 ? (JSON.parse(answer.text) as T) : undefined;
        },
        180_000,
        `${path} answered again`,
      );
    for (const { uuid, project } of checks) {
      const { pings } = await answered<{ pings: { n: number; rid?: string | null }[] }>(`/api/v3/checks/${uuid}/pings/`, project.api_key);
      const logged = new Set(pings.map((p) => p.rid));
      const missing = [...acked.get(uuid)!].filter((rid) => !logged.has(rid));
      assert.equal(missing, [], `check ${uuid}: acknowledged pings missing from the log`);
      // every ping of the load carries a fresh rid and none is sent again: a rid twice is a ping applied twice
      const rids = pings.flatMap((p) => (p.rid === undefined || p.rid === null || p.rid === "" ? [] : [p.rid]));
      const twice = rids.filter((rid, i) => rids.indexOf(rid) !== i);
      assert.equal(twice, [], `check ${uuid}: pings in the log twice`);
      const check = await answered<{ n_pings: number }>(`/api/v3/checks/${uuid}`, project.api_key);
      assert.is(check.n_pings, pings.length, `check ${uuid}: n_pings against its log`);
      assert.ok(pings.length >= acked.get(uuid)!.size);
    }
    const readsAt = Date.now();
    const total = [...acked.values()].reduce((n, s) => n + s.size, 0);
    for (const during of ["before", "node killed", "NATS server lost", "restored", "node cut off", "reconnected"]) {
      assert.ok((phaseAcks.get(during) ?? 0) > 0, `no ping acknowledged while ${during}: ${JSON.stringify([...phaseAcks])}`);
    }
    assert.ok(total >= 100, `only ${total} pings acknowledged: ${JSON.stringify([...statuses])}`);

    // every node answers the same
    for (const project of projects) {
      const dumps = await Promise.all(NODES.map((node) => dumpProject(nodeUrl(node), project)));
      assert.is(dumps[1], dumps[0], `project ${project.name}: node b differs from a`);
      assert.is(dumps[2], dumps[0], `project ${project.name}: node c differs from a`);
    }
    // a dashboard session opened on one node is known on the others; a sign-out on one ends it on all
    const form = (body: Record<string, string>, cookie?: string) => ({
      method: "POST",
      redirect: "manual" as const,
      headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(body).toString(),
    });
    const signIn = await fetch(`${nodeUrl("a")}/signin`, form({ key: TOKEN }));
    assert.is(signIn.status, 303);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
    assert.match(cookie, /^hcd_session=[A-Za-z0-9_-]{43}$/);
    // "/" shows the projects to a signed-in admin, else the sign-in form
    const page = async (node: string) => (await fetch(`${nodeUrl(node)}/`, { headers: { cookie }, redirect: "manual" })).text();
    const signedIn = (html: string) => html.includes(`>${projects[1].name}<`);
    const signInForm = (html: string) => html.includes('name="key"') && !signedIn(html);
    const bHtml = await page("b");
    assert.ok(signedIn(bHtml), "node b knows the session node a opened and shows it the projects");
    const csrf = /name="csrf" value="([^"]+)"/.exec(bHtml)?.[1];
    assert.ok(csrf, "a form with the session's token");
    assert.ok(signedIn(await page("c")), "and node c");
    assert.is((await fetch(`${nodeUrl("b")}/signout`, form({ csrf }, cookie))).status, 303);
    await waitFor(async () => (signInForm(await page("a")) ? true : undefined), 30_000, "node a ending the session signed out on node b");
    await waitFor(async () => (signInForm(await page("c")) ? true : undefined), 30_000, "node c ending it too");

    console.log(
      `  cluster failover: ${total} pings acknowledged, statuses ${JSON.stringify(Object.fromEntries(statuses))}, by phase ${JSON.stringify(Object.fromEntries(phaseAcks))}; ${victim} killed ${Math.round((dueAt - killedAt) / 1000)} s before the due time; every partition read again ${Math.round((readsAt - settledFrom) / 1000)} s after the load ended`,
    );
  } catch (error) {
    reportLogs(started);
    throw error;
  } finally {
    loadRunning = false;
    await Promise.all([...servers.values()].map((s) => stopServer(s, 5_000)));
    await watcher.close();
    for (const r of relays.flat()) r.close();
    await receiver.close();
    await nats.close();
    for (const dir of dirs) dir.remove();
  }
});

/**
 * On failure: every process's whole log goes to a kept folder, and the cluster's lines (partitions gained,
 * taken over, lost; takeovers and requests that failed) are printed with their times, so that who served
 * which partition when can be read from the test's output alone.
 */
function reportLogs(started: { name: string; server: RealServer }[]): void {
  const kept = mkdtempSync(join(tmpdir(), "hcd-cluster-failover-logs-"));
  started.forEach(({ name, server }, i) => {
    const file = join(kept, `${i}-node-${name}.log`);
    writeFileSync(file, server.output());
    console.log(`---- node ${name} (process ${i}), whole log in ${file}:`);
    for (const line of server.output().split("\n")) {
      let entry: { time?: string; msg?: string; [field: string]: unknown };
      try {
        entry = JSON.parse(line);
      } catch {
        if (line.trim() !== "") console.log(`  ${line.slice(0, 300)}`);
        continue;
      }
      if (!/^cluster:/.test(entry.msg ?? "") && !/error/i.test(entry.msg ?? "")) continue;
      const { time, msg, level: _level, pid: _pid, ...fields } = entry;
      console.log(`  ${time} ${msg} ${JSON.stringify(fields).slice(0, 400)}`);
    }
  });
}

/** Resolves with the first defined value of `probe`, asked every 250 ms; fails after `ms`. */
async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test.run();
