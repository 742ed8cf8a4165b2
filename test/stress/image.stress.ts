// The container image (CONTRACT.md "Container image and compose files"), built from the Dockerfile by
// buildah and run as a container runs it (test/stress/image-rig.ts): its configuration is the contract's;
// the final image has Debian's Node.js and no compiler; on a fresh /data it starts as its non-root user,
// answers status and a ping, passes its own HEALTHCHECK, stops on SIGTERM losing nothing, and a restart
// keeps the check and its ping. Prints the image's size, the build's and the start's seconds (with the
// start of this checkout's server in the same run). Needs buildah, mmdebstrap and unshare (root).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { closedPort, tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import { startServer, stopServer } from "../ops/server-process.ts";
import type { ImageConfig } from "./image-rig.ts";
import {
  buildImage,
  containedPid,
  ensureBaseImage,
  freshVolume,
  imageConfig,
  imageSize,
  mountImage,
  PROXY_VARIABLES,
  run,
  runContained,
  uidsOf,
} from "./image-rig.ts";
import type { Contained } from "./image-rig.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RELEASE = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const TAG = `localhost/hcd:${RELEASE}`;
const READY = ["buildah", "mmdebstrap", "unshare", "chroot"].every((program) =>
  haveProgram(program, "the container image's build and run"),
);

let config: ImageConfig;
let image: { rootfs: string; remove(): void } | null = null;

const envOf = (config: ImageConfig): Record<string, string> =>
  Object.fromEntries(config.Env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));

test("builds from the Dockerfile on debian:trixie-slim; its user, environment, volume, command, healthcheck and labels are the contract's", async () => {
  if (!READY) return;
  const base = await ensureBaseImage();
  const seconds = await buildImage(ROOT, TAG);
  console.log(`image ${TAG}: base image ${base}, built in ${seconds.toFixed(1)} s, size ${imageSize(TAG)}`);
  config = imageConfig(TAG);
  assert.match(config.User, /^[1-9]\d*:[1-9]\d*$/, "a fixed, numeric, non-root uid:gid");
  const env = envOf(config);
  assert.is(env.DATA_DIR, "/data");
  assert.is(env.HOST, "0.0.0.0");
  assert.is(env.PORT, "8000");
  for (const name of PROXY_VARIABLES) assert.is(env[name], undefined, `${name} is a build argument, never in the image`);
  assert.ok(config.Volumes !== null && "/data" in config.Volumes, "/data is a volume");
  assert.equal(config.Cmd, ["node", "dist/app/main.js"], "the built server, directly: nothing compiled at start");
  assert.is(config.WorkingDir, "/app");
  assert.is(config.StopSignal, "SIGTERM");
  assert.ok(config.ExposedPorts !== undefined && "8000/tcp" in config.ExposedPorts);
  assert.is(config.Healthcheck?.Test[0], "CMD", "an exec-form HEALTHCHECK (no shell in the way)");
  const labels = config.Labels ?? {};
  assert.is(labels["org.opencontainers.image.version"], RELEASE);
  assert.ok("org.opencontainers.image.source" in labels && "org.opencontainers.image.licenses" in labels);
});

test("the final image: Debian's Node.js 20.19 or newer; no compiler, no npm, no dev dependency, no test; the user exists", () => {
  if (!READY) return;
  image = mountImage(TAG);
  const { rootfs } = image;
  const version = run("chroot", [rootfs, "/usr/bin/node", "--version"]).trim();
  const [major, minor] = version.slice(1).split(".").map(Number);
  assert.ok(major > 20 || (major === 20 && minor >= 19), `node ${version}`);
  for (const tool of ["cc", "c++", "gcc", "g++", "clang", "make", "npm", "python3"]) {
    for (const dir of ["usr/bin", "usr/local/bin", "bin"])
      assert.not.ok(existsSync(join(rootfs, dir, tool)), `${dir}/${tool} is in the final image`);
  }
  assert.not.ok(existsSync(join(rootfs, "app/node_modules/typescript")), "dev dependencies stay in the build stage");
  assert.not.ok(existsSync(join(rootfs, "app/dist/test")), "no tests in the image");
  assert.ok(existsSync(join(rootfs, "app/node_modules/fs-native-extensions")), "the DATA_DIR lock's prebuilt module");
  const [uid] = config.User.split(":");
  assert.match(readFileSync(join(rootfs, "etc/passwd"), "utf8"), new RegExp(`^hcd:x:${uid}:`, "m"));
});

/** Starts the image's command on `volume`; resolves with its URL once it prints "listening on", and the seconds that took. */
async function startContained(volume: string, port: number): Promise<{ server: Contained; url: string; seconds: number }> {
  const started = performance.now();
  const server = runContained(image!.rootfs, {
    user: config.User,
    workdir: config.WorkingDir,
    volume,
    command: config.Cmd,
    env: { ...envOf(config), HOST: "127.0.0.1", PORT: String(port) },
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line in 60 s:\n${server.output()}`)), 60_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(server.output());
      if (match) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(match[1]);
      }
    }, 10);
    void server.exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`exited with ${code}:\n${server.output()}`));
    });
  });
  return { server, url, seconds: (performance.now() - started) / 1000 };
}

/** Runs the image's HEALTHCHECK command as declared, in the container's environment; resolves with its exit status. */
async function healthcheck(volume: string, port: number): Promise<number | null> {
  const probe = runContained(image!.rootfs, {
    user: config.User,
    workdir: config.WorkingDir,
    volume,
    command: config.Healthcheck!.Test.slice(1),
    env: { ...envOf(config), HOST: "127.0.0.1", PORT: String(port) },
  });
  return probe.exited;
}

test("runs as its user on a fresh /data: status, a ping, its HEALTHCHECK; SIGTERM stops it with 0, and a restart keeps the check and its ping", async () => {
  if (!READY) return;
  const dir = tempDir();
  const volume = join(dir.path, "volume");
  const [uid, gid] = config.User.split(":").map(Number);
  freshVolume(volume, uid, gid);
  const port = await closedPort();
  let server: Contained | null = null;
  try {
    const first = await startContained(volume, port);
    server = first.server;
    const token = /generated an admin token \(stored in \/data\/admin-token\): (\S+)/.exec(server.output())?.[1];
    assert.ok(token, `the first start prints its admin token:\n${server.output()}`);
    const pid = containedPid(server);
    assert.equal(uidsOf(pid), [uid, uid, uid, uid], "the server runs as the image's user, not root");
    assert.not.ok(uidsOf(pid).includes(0));

    const status = await fetch(`${first.url}/api/v3/status/`);
    assert.is(status.status, 200);
    assert.is(status.headers.get("x-hcd-version"), RELEASE);
    assert.is(await healthcheck(volume, port), 0, "the HEALTHCHECK command passes against the running server");

    const admin = { authorization: `Bearer ${token}` };
    const project = (await (
      await fetch(`${first.url}/admin/v1/projects`, { method: "POST", headers: admin, body: JSON.stringify({ name: "image" }) })
    ).json()) as { api_key: string };
    const created = await fetch(`${first.url}/api/v3/checks/`, {
      method: "POST",
      headers: { "x-api-key": project.api_key },
      body: JSON.stringify({ name: "kept", timeout: 3600, grace: 60 }),
    });
    assert.is(created.status, 201);
    const { uuid } = (await created.json()) as { uuid: string };
    const ping = await fetch(`${first.url}/ping/${uuid}`, { method: "POST", body: "from inside the image" });
    assert.is(ping.status, 200);
    assert.is(await ping.text(), "OK");

    process.kill(pid, "SIGTERM"); // as `docker stop` does, to PID 1
    assert.is(await server.exited, 0, server.output());
    assert.match(server.output(), /SIGTERM received, shutting down/);
    server = null;
    assert.is.not(await healthcheck(volume, port), 0, "the HEALTHCHECK fails when nothing answers");
    assert.is(statSync(join(volume, "admin-token")).uid, uid, "the store belongs to the image's user");
    assert.is(statSync(join(volume, "admin-token")).mode & 0o777, 0o600);

    const second = await startContained(volume, port);
    server = second.server;
    assert.not.match(server.output(), /generated an admin token/, "the token is kept in the volume");
    const keyed = { headers: { "x-api-key": project.api_key } };
    const read = await fetch(`${second.url}/api/v3/checks/${uuid}`, keyed);
    assert.is(read.status, 200);
    const check = (await read.json()) as { name: string; n_pings: number; status: string };
    assert.is(check.name, "kept");
    assert.is(check.n_pings, 1);
    assert.is(check.status, "up");
    const pings = (await (await fetch(`${second.url}/api/v3/checks/${uuid}/pings/`, keyed)).json()) as { pings: { type: string }[] };
    assert.is(pings.pings.length, 1);
    process.kill(containedPid(server), "SIGTERM");
    assert.is(await server.exited, 0, server.output());
    server = null;

    // the same start from this checkout, in this run, as the baseline of the figure
    const baseline = tempDir();
    try {
      const started = performance.now();
      const local = await startServer(baseline.path);
      const localSeconds = (performance.now() - started) / 1000;
      await stopServer(local);
      console.log(
        `start to "listening on": image ${first.seconds.toFixed(2)} s on a fresh /data, ${second.seconds.toFixed(2)} s again; this checkout's node dist/app/main.js ${localSeconds.toFixed(2)} s`,
      );
    } finally {
      baseline.remove();
    }
  } finally {
    server?.child.kill("SIGKILL"); // unshare's --kill-child takes the server with it
    if (server !== null) await server.exited;
    dir.remove();
  }
});

test("cleanup: the image's root file system is unmounted", () => {
  image?.remove();
  image = null;
});

test.run();
