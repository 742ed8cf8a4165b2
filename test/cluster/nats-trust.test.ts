// NATS as a trust boundary, with real nats-server and hcd processes: a node joins a server that demands
// a user and password, a credentials file (operator, account and user JWTs) or TLS only with the right
// ones, and with wrong ones exits 1 at once, naming the NATS or TLS error; a server not up yet is waited for.
import { writeFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { NatsTrustError, connectAtStart } from "../../cluster/connect.ts";
import { closedPort, tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import { makeCertificates, makeOperator, runNodeUntilExit, spawnNode, startConfiguredNats } from "./nats-trust-setup.ts";

const HAVE_NATS = haveProgram("nats-server", "hcd nodes authenticating to NATS");
const HAVE_OPENSSL = haveProgram("openssl", "hcd nodes verifying a NATS server's TLS certificate");
const TOKEN = "nats-trust-admin-token-0123456789";
const PASSWORD = "s3cret/p@ss:word"; // characters that must be percent-encoded in a URL
const USERS = `authorization { users = [ { user: hcd, password: "${PASSWORD}" } ] }`;

const dir = tempDir("hcd-nats-trust-");
test.after(() => dir.remove());

let nodes = 0;
/** A node's environment: two partitions on the one server, its own DATA_DIR. */
function nodeEnv(env: Record<string, string>): Record<string, string> {
  return {
    DATA_DIR: `${dir.path}/node-${++nodes}`,
    ADMIN_TOKEN: TOKEN,
    CLUSTER_PARTITIONS: "2",
    CLUSTER_REPLICAS: "1",
    NODE_ID: "n1",
    LOG_FORMAT: "text",
    ...env,
  };
}

/** A project, a check and a ping through the node: the ping answered OK and counted. */
async function servesAPing(url: string): Promise<void> {
  const project = await ok<{ api_key: string }>(
    call(url, "POST", "/admin/v1/projects", { headers: { authorization: `Bearer ${TOKEN}` }, body: { name: "p" } }),
  );
  const check = await ok<{ uuid: string }>(
    call(url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "c", timeout: 3600, grace: 3600 } }),
  );
  const ping = await call(url, "GET", `/ping/${check.uuid}`);
  assert.equal([ping.status, ping.text], [200, "OK"]);
  const read = await ok<{ n_pings: number }>(call(url, "GET", `/api/v3/checks/${check.uuid}`, { key: project.api_key }));
  assert.is(read.n_pings, 1);
}

test("user and password: the right ones join and serve; the password is never printed; wrong or none exit 1 naming the error", async () => {
  if (!HAVE_NATS) return;
  const nats = await startConfiguredNats({ dir: dir.path, config: USERS });
  try {
    const node = await startServer({
      dataDir: "",
      env: nodeEnv({ NATS_URL: `nats://hcd:${encodeURIComponent(PASSWORD)}@${nats.address}` }),
    });
    try {
      await servesAPing(node.url);
      assert.ok(node.output().includes(`"natsPassword":"[masked]"`), "the configuration is printed, the password masked");
      assert.not.ok(node.output().includes(PASSWORD) || node.output().includes(encodeURIComponent(PASSWORD)), node.output());
    } finally {
      assert.is(await stopServer(node), 0);
    }
    for (const url of [`nats://hcd:wrong@${nats.address}`, `nats://${nats.address}`]) {
      const run = await runNodeUntilExit(nodeEnv({ NATS_URL: url }));
      assert.is(run.code, 1, run.output);
      assert.match(run.output, /cannot join the cluster at NATS_URL: NATS refused the credentials: Authorization Violation/);
      assert.not.ok(run.output.includes("wrong"), "the password is not in the message");
    }
  } finally {
    await nats.stop();
  }
});

test("a token in NATS_URL joins; a wrong one exits 1 naming the error", async () => {
  if (!HAVE_NATS) return;
  const nats = await startConfiguredNats({ dir: dir.path, config: `authorization { token: "t0ken-of-the-cluster" }` });
  try {
    const node = await startServer({ dataDir: "", env: nodeEnv({ NATS_URL: `nats://t0ken-of-the-cluster@${nats.address}` }) });
    try {
      await servesAPing(node.url);
      assert.not.ok(node.output().includes("t0ken-of-the-cluster"), "the token is never printed");
    } finally {
      assert.is(await stopServer(node), 0);
    }
    const run = await runNodeUntilExit(nodeEnv({ NATS_URL: `nats://another-token@${nats.address}` }));
    assert.is(run.code, 1, run.output);
    assert.match(run.output, /NATS refused the credentials: Authorization Violation/);
  } finally {
    await nats.stop();
  }
});

test("a credentials file (user JWT and seed of the operator's account) joins; a stranger's, a bad or a missing file exit 1 naming why", async () => {
  if (!HAVE_NATS) return;
  const operator = await makeOperator();
  const nats = await startConfiguredNats({ dir: dir.path, config: operator.config });
  try {
    const creds = `${dir.path}/node.creds`,
      stranger = `${dir.path}/stranger.creds`,
      bad = `${dir.path}/bad.creds`;
    await operator.creds(creds);
    await operator.strangerCreds(stranger);
    writeFileSync(bad, "not a credentials file\n");
    const node = await startServer({ dataDir: "", env: nodeEnv({ NATS_URL: `nats://${nats.address}`, NATS_CREDS: creds }) });
    try {
      await servesAPing(node.url);
    } finally {
      assert.is(await stopServer(node), 0);
    }
    const cases: [string, RegExp][] = [
      [stranger, /NATS refused the credentials: Authorization Violation/],
      [bad, /NATS_CREDS=.*bad\.creds: not a NATS credentials file/],
      [`${dir.path}/missing.creds`, /cannot read NATS_CREDS=.*missing\.creds/],
    ];
    for (const [file, expected] of cases) {
      const run = await runNodeUntilExit(nodeEnv({ NATS_URL: `nats://${nats.address}`, NATS_CREDS: file }));
      assert.is(run.code, 1, run.output);
      assert.match(run.output, expected);
    }
    const none = await runNodeUntilExit(nodeEnv({ NATS_URL: `nats://${nats.address}` }));
    assert.is(none.code, 1, none.output);
    assert.match(none.output, /Authorization Violation/);
  } finally {
    await nats.stop();
  }
});

test("TLS: a node verifies the server against NATS_TLS_CA and joins; without that CA, or with another, it exits 1 naming the TLS error", async () => {
  if (!HAVE_NATS || !HAVE_OPENSSL) return;
  const certs = makeCertificates(dir.path, "right");
  const other = makeCertificates(dir.path, "other");
  const nats = await startConfiguredNats({
    dir: dir.path,
    config: `tls { cert_file: "${certs.cert}", key_file: "${certs.key}" }\n${USERS}`,
  });
  const url = `tls://hcd:${encodeURIComponent(PASSWORD)}@${nats.address}`;
  try {
    const node = await startServer({ dataDir: "", env: nodeEnv({ NATS_URL: url, NATS_TLS_CA: certs.ca }) });
    try {
      await servesAPing(node.url);
    } finally {
      assert.is(await stopServer(node), 0);
    }
    const envs: Record<string, string>[] = [{ NATS_URL: url }, { NATS_URL: url, NATS_TLS_CA: other.ca }];
    for (const env of envs) {
      const run = await runNodeUntilExit(nodeEnv(env));
      assert.is(run.code, 1, run.output);
      assert.match(run.output, /cannot join the cluster at NATS_URL: TLS verification of the NATS server failed: .*certificate/);
    }
  } finally {
    await nats.stop();
  }
});

test("tls:// to a server that offers no TLS exits 1 (nothing is sent in the clear)", async () => {
  if (!HAVE_NATS) return;
  const nats = await startConfiguredNats({ dir: dir.path, config: USERS });
  try {
    const run = await runNodeUntilExit(nodeEnv({ NATS_URL: `tls://hcd:${encodeURIComponent(PASSWORD)}@${nats.address}` }));
    assert.is(run.code, 1, run.output);
    assert.match(run.output, /TLS required \(tls:\/\/ in NATS_URL\) but the NATS server offers none/);
  } finally {
    await nats.stop();
  }
});

test("a server not up yet is waited for: the node joins once it starts", async () => {
  if (!HAVE_NATS) return;
  const port = await closedPort();
  const node = spawnNode(nodeEnv({ NATS_URL: `nats://hcd:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}` }));
  try {
    // the node has tried and been refused before the server exists
    await node.said(/waiting for NATS: connection refused/);
    const nats = await startConfiguredNats({ dir: dir.path, config: USERS, port });
    try {
      const [, url] = await node.said(/listening on (http:\/\/\S+)/);
      await servesAPing(url);
      assert.is(await node.stop(), 0, node.output());
    } finally {
      await nats.stop();
    }
  } finally {
    await node.stop();
  }
});

test("with several servers, a refusal by one that is up is not hidden behind one that is down", async () => {
  if (!HAVE_NATS) return;
  const nats = await startConfiguredNats({ dir: dir.path, config: USERS });
  try {
    const down = await closedPort();
    // the client tries the servers in order and reports the last one's error: here the down one's
    const error = await connectAtStart(
      { servers: [nats.address, `127.0.0.1:${down}`], noRandomize: true, user: "hcd", pass: "wrong", maxReconnectAttempts: -1 },
      3_000,
    ).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(error, NatsTrustError);
    assert.match((error as Error).message, /Authorization Violation/);
  } finally {
    await nats.stop();
  }
});

test("credentials revoked while a node runs: it exits 1 naming the error", async () => {
  if (!HAVE_NATS) return;
  const nats = await startConfiguredNats({ dir: dir.path, config: USERS });
  try {
    const node = await startServer({
      dataDir: "",
      env: nodeEnv({ NATS_URL: `nats://hcd:${encodeURIComponent(PASSWORD)}@${nats.address}` }),
    });
    await nats.reload(`authorization { users = [ { user: hcd, password: "another" } ] }`);
    const guard = setTimeout(() => node.child.kill("SIGKILL"), 15_000); // a node that stays fails the test, not the run
    const { code } = await node.exited;
    clearTimeout(guard);
    assert.is(code, 1, node.output());
    assert.match(node.output(), /lost the cluster at NATS_URL: .*Authorization Violation/);
  } finally {
    await nats.stop();
  }
});

test.run();
