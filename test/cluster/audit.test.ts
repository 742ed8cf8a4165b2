// The audit log in cluster mode, with real processes (one nats-server, two hcd nodes): a change is recorded
// in the cluster's audit stream whichever node received it, so every node lists the project's whole log,
// newest first, and pages it with the same cursor.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import type { ConfiguredNats } from "./nats-trust-setup.ts";
import { startConfiguredNats } from "./nats-trust-setup.ts";
import { connect } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";

const HAVE_NATS = haveProgram("nats-server", "the audit log through a cluster");
const TOKEN = "cluster-audit-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };

test("every node lists every change of the project, whichever node received it, with their actors", async () => {
  if (!HAVE_NATS) return;
  const dir = tempDir("hcd-cluster-audit-");
  let nats: ConfiguredNats | null = null;
  const nodes: RealServer[] = [];
  try {
    nats = await startConfiguredNats({ dir: dir.path, config: "" });
    for (const id of ["a", "b"]) {
      nodes.push(
        await startServer({
          dataDir: "",
          env: {
            DATA_DIR: `${dir.path}/node-${id}`,
            ADMIN_TOKEN: TOKEN,
            NATS_URL: `nats://${nats.address}`,
            NODE_ID: id,
            CLUSTER_PARTITIONS: "4",
            CLUSTER_REPLICAS: "1",
            LOG_FORMAT: "text",
          },
        }),
      );
    }
    const [a, b] = nodes;
    const project = await ok<{ id: string; api_key: string }>(
      call(a.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: "Ops" } }),
    );
    // b learns of the project from the replicated directory: a create through it is refused (401) until then
    const failAt = Date.now() + 15_000; // a failure deadline
    let created = await call(b.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } });
    while (created.status === 401 && Date.now() < failAt) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      created = await call(b.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } });
    }
    assert.is(created.status, 201, created.text);
    const { uuid } = JSON.parse(created.text) as { uuid: string };
    await ok(call(a.url, "POST", `/api/v3/checks/${uuid}/pause`, { key: project.api_key }));

    const lines = async (node: RealServer) =>
      (
        await ok<{ events: { actor: string; action: string; target: string }[] }>(
          call(node.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
        )
      ).events.map((e) => `${e.actor} | ${e.action} | ${e.target}`);
    const whole = [
      `API key (read-write) | check.paused | check "job" ${uuid}`, // through a
      `API key (read-write) | check.created | check "job" ${uuid}`, // through b
      `admin token | project.created | project "Ops" ${project.id}`, // through a
    ];
    assert.equal(await lines(a), whole);
    assert.equal(await lines(b), whole);
    // paged: two, then the oldest through the cursor, on the other node
    const first = await ok<{ events: { action: string }[]; next: string | null }>(
      call(a.url, "GET", `/admin/v1/projects/${project.id}/audit?limit=2`, { headers: admin }),
    );
    assert.equal(
      first.events.map((e) => e.action),
      ["check.paused", "check.created"],
    );
    assert.ok(first.next !== null);
    const rest = await ok<{ events: { action: string }[]; next: string | null }>(
      call(b.url, "GET", `/admin/v1/projects/${project.id}/audit?limit=2&before=${first.next}`, { headers: admin }),
    );
    assert.equal(
      rest.events.map((e) => e.action),
      ["project.created"],
    );
    assert.is(rest.next, null);
  } finally {
    for (const node of nodes) assert.is(await stopServer(node), 0);
    await nats?.stop();
    dir.remove();
  }
});

test("each actor's each action keeps its newest AUDIT_MAX_EVENTS: a key's flood of changes leaves the admin token's events; an older version's events are still read", async () => {
  if (!HAVE_NATS) return;
  const dir = tempDir("hcd-cluster-audit-cap-");
  let nats: ConfiguredNats | null = null;
  let node: RealServer | null = null;
  try {
    nats = await startConfiguredNats({ dir: dir.path, config: "" });
    const env = {
      DATA_DIR: `${dir.path}/node`,
      ADMIN_TOKEN: TOKEN,
      NATS_URL: `nats://${nats.address}`,
      NODE_ID: "a",
      CLUSTER_PARTITIONS: "4",
      CLUSTER_REPLICAS: "1",
      AUDIT_MAX_EVENTS: "3",
    };
    // the stream as an older version made it (a subject per project), with one event of that version in it
    const nc = await connect({ servers: nats.address });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "hcd-audit", subjects: ["hcd.audit.*"], max_msgs_per_subject: 3 });
    node = await startServer({ dataDir: "", env });
    const project = await ok<{ id: string; api_key: string }>(
      call(node.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: "Flooded" } }),
    );
    await jetstream(nc).publish(
      `hcd.audit.${project.id}`,
      JSON.stringify({ at: Date.now(), actor: "older version", action: "check.deleted", target: 'check "old"' }),
    );
    await nc.close();
    for (const name of ["a", "b", "c", "d", "e", "f"])
      await ok(call(node.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name } }));
    const events = (
      await ok<{ events: { actor: string; action: string; target: string }[] }>(
        call(node.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
      )
    ).events;
    assert.equal(
      events.map((e) => `${e.actor} | ${e.action} | ${e.target.split(" ")[1]}`),
      [
        'API key (read-write) | check.created | "f"',
        'API key (read-write) | check.created | "e"',
        'API key (read-write) | check.created | "d"',
        'older version | check.deleted | "old"',
        'admin token | project.created | "Flooded"',
      ],
    );
  } finally {
    if (node !== null) assert.is(await stopServer(node), 0, node.output());
    await nats?.stop();
    dir.remove();
  }
});

test.run();
