// The container image built and run without a container engine: the base image debian:trixie-slim made
// here from Debian's packages (mmdebstrap, cached by day and recipe), the Dockerfile built by buildah
// (chroot isolation), and the image's command run in its mounted root file system as its user, with its
// environment, as PID 1 of a PID namespace of its own (unshare + chroot).
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const BASE_IMAGE = "docker.io/library/debian:trixie-slim";
const MIRROR = "http://deb.debian.org/debian";
const HOST_CAS = "/usr/local/share/ca-certificates"; // a proxy's CA the host trusts: HTTPS from the build goes through it
const BASE_KEY_LABEL = "org.hcd.test-base"; // marks a base image made here, with the key of its recipe
// as Debian's official slim images: no manuals, info pages, translations or docs (copyright files kept),
// and dpkg without an fsync per file (their "apt speedup": an image layer is written whole or not at all)
const SLIM = [
  "path-exclude=/usr/share/doc/*",
  "path-include=/usr/share/doc/*/copyright",
  "path-exclude=/usr/share/man/*",
  "path-exclude=/usr/share/groff/*",
  "path-exclude=/usr/share/info/*",
  "path-exclude=/usr/share/lintian/*",
  "path-exclude=/usr/share/linda/*",
  "path-exclude=/usr/share/locale/*",
  "force-unsafe-io",
];
const APT = ['Acquire::Languages "none"']; // no translated package descriptions fetched
export const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy"];

/** Runs a program to its end; throws with its output when it fails. */
export function run(program: string, args: readonly string[], options: { input?: string } = {}): string {
  const result = spawnSync(program, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, input: options.input });
  if (result.status !== 0) {
    throw new Error(
      `${program} ${args.join(" ")} failed (${result.error?.message ?? `status ${result.status}`}):\n${(result.stdout ?? "").slice(-4000)}\n${(result.stderr ?? "").slice(-4000)}`,
    );
  }
  return result.stdout;
}

/** Runs a program to its end without waiting on this thread (a build takes minutes; the event loop stays free). */
export function runAsync(program: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (status) =>
      status === 0 ? resolve(out) : reject(new Error(`${program} ${args.join(" ")} exited ${status}:\n${out.slice(-6000)}`)),
    );
  });
}

function cacheDir(): string {
  const dir = process.env.HCD_IMAGE_CACHE ?? join(homedir(), ".cache", "hcd-image");
  mkdirSync(dir, { recursive: true });
  return dir;
}

function hostCas(): string[] {
  return existsSync(HOST_CAS)
    ? readdirSync(HOST_CAS)
        .filter((name) => name.endsWith(".crt"))
        .sort()
    : [];
}

/** The key of today's base image: the day (Debian's security updates) and everything the recipe holds. */
function baseKey(): string {
  const recipe = createHash("sha256").update(JSON.stringify({ MIRROR, SLIM, APT, variant: "minbase", suite: "trixie" }));
  for (const name of hostCas()) recipe.update(name).update(readFileSync(join(HOST_CAS, name)));
  return `${new Date().toISOString().slice(0, 10)}-${recipe.digest("hex").slice(0, 16)}`;
}

/**
 * Makes `debian:trixie-slim` available to buildah: kept when buildah already has today's (same recipe),
 * else imported from the cached tarball, else made with mmdebstrap (about a minute) and cached. Returns how.
 */
export async function ensureBaseImage(): Promise<"kept" | "imported" | "made"> {
  const key = baseKey();
  const present = spawnSync(
    "buildah",
    ["inspect", "--type", "image", "--format", `{{index .Docker.Config.Labels "${BASE_KEY_LABEL}"}}`, BASE_IMAGE],
    { encoding: "utf8" },
  );
  if (present.status === 0 && present.stdout.trim() === key) return "kept";
  const tarball = join(cacheDir(), `debian-trixie-slim-${key}.tar`);
  let how: "imported" | "made" = "imported";
  if (!existsSync(tarball)) {
    how = "made";
    const partial = `${tarball}.partial`;
    const cas = hostCas().map((name) => join(HOST_CAS, name));
    const customize = cas.length === 0 ? [] : [`--customize-hook=mkdir -p "$1${HOST_CAS}" && cp ${cas.join(" ")} "$1${HOST_CAS}/"`];
    await runAsync("mmdebstrap", [
      "--variant=minbase",
      "--mode=root",
      "--format=tar",
      ...SLIM.map((option) => `--dpkgopt=${option}`),
      ...APT.map((option) => `--aptopt=${option}`),
      ...customize,
      "trixie",
      partial,
      MIRROR,
    ]);
    renameSync(partial, tarball);
    for (const old of readdirSync(cacheDir()))
      if (old.startsWith("debian-trixie-slim-") && join(cacheDir(), old) !== tarball) rmSync(join(cacheDir(), old), { force: true });
  }
  const container = run("buildah", ["from", "scratch"]).trim();
  try {
    run("buildah", ["add", container, tarball, "/"]);
    run("buildah", [
      "config",
      "--env",
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "--cmd",
      "bash",
      "--label",
      `${BASE_KEY_LABEL}=${key}`,
      container,
    ]);
    run("buildah", ["commit", "--quiet", container, BASE_IMAGE]);
  } finally {
    spawnSync("buildah", ["rm", container]);
  }
  return how;
}

/** Builds the Dockerfile in `context` as `tag` (layers cached); the host's proxy settings as build arguments. Returns the seconds it took. */
export async function buildImage(context: string, tag: string): Promise<number> {
  const proxies = PROXY_VARIABLES.filter((name) => process.env[name]).flatMap((name) => ["--build-arg", `${name}=${process.env[name]}`]);
  const started = performance.now();
  await runAsync("buildah", ["bud", "--isolation", "chroot", "--format", "docker", "--layers", ...proxies, "-t", tag, context]);
  return (performance.now() - started) / 1000;
}

/** The image's Docker configuration (User, Env, Cmd, WorkingDir, Volumes, Healthcheck, Labels, StopSignal). */
export type ImageConfig = {
  User: string;
  Env: string[];
  Cmd: string[];
  WorkingDir: string;
  Volumes: Record<string, unknown> | null;
  Healthcheck?: { Test: string[] };
  Labels: Record<string, string> | null;
  StopSignal?: string;
  ExposedPorts?: Record<string, unknown>;
};

export function imageConfig(tag: string): ImageConfig {
  return (JSON.parse(run("buildah", ["inspect", "--type", "image", tag])) as { Docker: { config: ImageConfig } }).Docker.config;
}

/** The image's size as buildah shows it (its layers, uncompressed; "403 MB"). */
export function imageSize(tag: string): string {
  const images = JSON.parse(run("buildah", ["images", "--json", tag])) as { size: string }[];
  return images[0].size;
}

/** A container of `tag` with its root file system mounted; remove() unmounts and removes it. */
export function mountImage(tag: string): { rootfs: string; remove(): void } {
  const container = run("buildah", ["from", "--pull=never", tag]).trim();
  const rootfs = run("buildah", ["mount", container]).trim();
  return {
    rootfs,
    remove: () => {
      spawnSync("buildah", ["umount", container]);
      spawnSync("buildah", ["rm", container]);
    },
  };
}

/** A fresh volume for /data, owned by the image's user as Docker makes a new named volume from the image's /data. */
export function freshVolume(path: string, uid: number, gid: number): void {
  mkdirSync(path, { recursive: true });
  chownSync(path, uid, gid);
  chmodSync(path, 0o700);
}

export type Contained = { readonly child: ChildProcess; readonly exited: Promise<number | null>; output(): string };

/**
 * Runs `command` in the image as a container would: PID 1 of a new PID namespace, /proc of its own,
 * the host's /dev, `volume` at /data, chrooted into `rootfs` as `user` ("uid:gid") in `workdir`, with
 * exactly `env` (the image's, with the test's overrides).
 */
export function runContained(
  rootfs: string,
  opts: { user: string; workdir: string; env: Record<string, string>; volume: string; command: readonly string[] },
): Contained {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const env = Object.entries(opts.env).map(([name, value]) => quote(`${name}=${value}`));
  const script = [
    `mount --bind ${quote(opts.volume)} ${quote(`${rootfs}/data`)}`,
    `mount --rbind /dev ${quote(`${rootfs}/dev`)}`,
    `exec chroot --userspec=${opts.user} ${quote(rootfs)} /usr/bin/env -i --chdir=${quote(opts.workdir)} ${env.join(" ")} ${opts.command.map(quote).join(" ")}`,
  ].join(" && ");
  const child = spawn("unshare", ["--pid", "--fork", "--mount", `--mount-proc=${rootfs}/proc`, "--kill-child", "sh", "-c", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** The host pid of the contained program (unshare's forked child, PID 1 inside). */
export function containedPid(contained: Contained): number {
  const children = readFileSync(`/proc/${contained.child.pid}/task/${contained.child.pid}/children`, "utf8").trim().split(/\s+/);
  return Number(children[0]);
}

/** The real, effective, saved and file-system uids of a host process (/proc/<pid>/status). */
export function uidsOf(pid: number): number[] {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("Uid:"));
  return (line ?? "").slice(4).trim().split(/\s+/).map(Number);
}
