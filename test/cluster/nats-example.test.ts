// The cluster example of docs/cluster.md, run: three nats-server from contrib/nats/nats-server.conf (only its ports,
// paths, host names and the two passwords replaced) form their routes over TLS with the route password,
// a node joins over TLS with the client password and serves a ping on R3 streams, and a server with the
// wrong route password, or a certificate of another CA, is not let in as a route.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { connect } from "@nats-io/transport-node";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { credentialsRefused } from "../../cluster/nats-errors.ts";
import { closedPort, tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import type { ConfiguredNats } from "./nats-trust-setup.ts";
import { makeCertificates, startConfiguredNats } from "./nats-trust-setup.ts";

const HAVE_NATS = haveProgram("nats-server", "docs/cluster.md's authenticated NATS cluster");
const HAVE_OPENSSL = haveProgram("openssl", "docs/cluster.md's authenticated NATS cluster");
const EXAMPLE = readFileSync(fileURLToPath(new URL("../../../contrib/nats/nats-server.conf", import.meta.url)), "utf8");
const TOKEN = "nats-example-admin-token-0123456789";
// Debian 12's nats-server (2.9) predates sync_interval, the one line of the example it does not know: there
// the example runs without it (what it changes, when a write reaches the disk, no test here can see)
const NATS_MINOR = Number(/v2\.(\d+)/.exec(spawnSync("nats-server", ["--version"], { encoding: "utf8" }).stdout ?? "")?.[1] ?? 99);

/** Replaces every `from` in `text`, failing when there is none (the example changed shape). */
function replaced(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`contrib/nats/nats-server.conf has no ${JSON.stringify(from)}`);
  return text.split(from).join(to);
}

type Slot = { name: string; client: number; route: number; monitor: number };

/** The example for server `slot` of `slots` on this machine's loopback, with these certificates and passwords. */
function exampleFor(
  slot: Slot,
  slots: readonly Slot[],
  options: { dir: string; certs: { ca: string; cert: string; key: string }; hcdPassword: string; routePassword: string },
): string {
  let config = EXAMPLE;
  if (NATS_MINOR < 10) config = replaced(config, "  sync_interval: always\n", "");
  config = replaced(config, "server_name: n1", `server_name: ${slot.name}`);
  config = replaced(config, "listen: 0.0.0.0:4222", `listen: 127.0.0.1:${slot.client}`);
  config = replaced(config, "listen: 0.0.0.0:6222", `listen: 127.0.0.1:${slot.route}`);
  config = replaced(config, "http: 127.0.0.1:8222", `http: 127.0.0.1:${slot.monitor}`);
  config = replaced(config, "/var/lib/nats", `${options.dir}/store-${slot.name}`);
  config = replaced(config, "/etc/nats/tls/server.pem", options.certs.cert);
  config = replaced(config, "/etc/nats/tls/server.key", options.certs.key);
  config = replaced(config, "/etc/nats/tls/ca.pem", options.certs.ca);
  for (const other of slots) config = replaced(config, `@${other.name}:6222`, `@127.0.0.1:${other.route}`);
  config = replaced(config, "HCD-PASSWORD", options.hcdPassword);
  return replaced(config, "ROUTE-PASSWORD", options.routePassword);
}

/** Resolves once the server's monitoring port names a JetStream meta leader (the routes carry a quorum). */
async function metaLeader(slot: Slot, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const jsz = (await (await fetch(`http://127.0.0.1:${slot.monitor}/jsz`)).json()) as { meta_cluster?: { leader?: string } };
      if (jsz.meta_cluster?.leader) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${slot.name}: no JetStream meta leader within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function routesOf(slot: Slot): Promise<string[]> {
  const routez = (await (await fetch(`http://127.0.0.1:${slot.monitor}/routez`)).json()) as { routes?: { remote_id: string }[] };
  return (routez.routes ?? []).map((route) => route.remote_id);
}

test("the example's three servers route over TLS with the route password; a node joins with the client password; strangers are not routed", async () => {
  if (!HAVE_NATS || !HAVE_OPENSSL) return;
  const dir = tempDir("hcd-nats-example-");
  const servers: ConfiguredNats[] = [];
  try {
    const certs = makeCertificates(dir.path, "cluster");
    const strangerCerts = makeCertificates(dir.path, "stranger");
    const hcdPassword = randomBytes(16).toString("hex"),
      routePassword = randomBytes(16).toString("hex");
    const slots: Slot[] = [];
    for (const name of ["n1", "n2", "n3"])
      slots.push({ name, client: await closedPort(), route: await closedPort(), monitor: await closedPort() });
    for (const slot of slots) {
      servers.push(
        await startConfiguredNats({
          dir: dir.path,
          port: slot.client,
          whole: true,
          config: exampleFor(slot, slots, { dir: dir.path, certs, hcdPassword, routePassword }),
        }),
      );
    }
    for (const slot of slots) await metaLeader(slot);
    const routed = await routesOf(slots[0]);

    // a client without the password is refused (over TLS: the server offers nothing else)
    const anonymous = await connect({ servers: [`127.0.0.1:${slots[0].client}`], tls: { ca: readFileSync(certs.ca, "utf8") } }).then(
      async (nc) => {
        await nc.close();
        return null;
      },
      (error: unknown) => (credentialsRefused(error) ? "refused" : String(error)),
    );
    assert.is(anonymous, "refused");

    const node = await startServer({
      dataDir: `${dir.path}/node`,
      env: {
        NATS_URL: slots.map((slot) => `tls://hcd:${hcdPassword}@127.0.0.1:${slot.client}`).join(","),
        NATS_TLS_CA: certs.ca,
        ADMIN_TOKEN: TOKEN,
        NODE_ID: "n1",
        CLUSTER_PARTITIONS: "2",
        CLUSTER_REPLICAS: "3",
      },
    });
    try {
      const project = await ok<{ api_key: string }>(
        call(node.url, "POST", "/admin/v1/projects", { headers: { authorization: `Bearer ${TOKEN}` }, body: { name: "p" } }),
      );
      const check = await ok<{ uuid: string }>(
        call(node.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "c", timeout: 3600, grace: 3600 } }),
      );
      assert.equal(await call(node.url, "GET", `/ping/${check.uuid}`).then((a) => [a.status, a.text]), [200, "OK"]);
    } finally {
      assert.is(await stopServer(node), 0, node.output());
    }

    // a fourth server with the wrong route password, and a fifth with the right one but a certificate of
    // another CA (it trusts n1's; one n1 does not ask for is not even shown): n1 refuses each, and still
    // routes to n2 and n3 only
    const strangers: [string, { ca: string; cert: string; key: string }, string, RegExp][] = [
      ["x1", certs, "not-the-route-password", /authentication error - User "route"/],
      [
        "x2",
        { ...strangerCerts, ca: certs.ca },
        routePassword,
        /TLS route handshake error: (x509: certificate signed by unknown authority|tls: client didn't provide a certificate)/,
      ],
    ];
    for (const [name, strangerCerts, password, refusal] of strangers) {
      const slot = { name, client: await closedPort(), route: await closedPort(), monitor: await closedPort() };
      // its routes: n1, and itself in the places of n2 and n3
      const config = exampleFor(slot, [slots[0], { ...slot, name: "n2" }, { ...slot, name: "n3" }], {
        dir: dir.path,
        certs: strangerCerts,
        hcdPassword,
        routePassword: password,
      });
      servers.push(await startConfiguredNats({ dir: dir.path, port: slot.client, whole: true, config }));
      await servers[0].said(refusal);
    }
    assert.equal((await routesOf(slots[0])).sort(), routed.sort(), "n1 routes to the same two servers as before");
    assert.is(routed.length, 2);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    dir.remove();
  }
});

test.run();
