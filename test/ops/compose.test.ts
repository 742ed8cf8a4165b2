// compose.yaml and contrib/compose/cluster.yaml, loaded as YAML (with compose's `<<` merges and `${...}`
// interpolation): every variable set on an hcd service is one the configuration reads (as a NAME or a
// secret's NAME_FILE, the whole environment accepted by it) and one docs/configuration.md's table lists;
// every NATS server's variables are the ones its nats.conf refers to; images are tagged with the release
// (NATS 2.10.23 or newer, with sync_interval: always), build contexts hold the Dockerfile, and volumes,
// secrets, configs, networks, dependencies and healthchecks are well formed and declared.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { readSettings } from "../../app/config.ts";
import { SECRET_SETTINGS, withSecretFiles } from "../../app/secret-files.ts";
import { tempDir } from "../helpers.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RELEASE = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const FILES = ["compose.yaml", "contrib/compose/cluster.yaml"];
const PLACEHOLDER = "hcd-test-value"; // what a required ${NAME:?...} is given here (letters first, as the files ask)

type Service = {
  image?: string;
  build?: string | { context: string };
  environment?: Record<string, unknown> | string[];
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[]; interval?: string; timeout?: string; start_period?: string; retries?: number };
  secrets?: string[];
  configs?: { source: string; target: string }[];
  networks?: string[];
  depends_on?: Record<string, { condition: string }>;
  command?: string[];
};
type Compose = {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file: string }>;
  configs?: Record<string, { file: string }>;
  networks?: Record<string, unknown>;
};

/** Compose's interpolation: ${NAME}, ${NAME:-default}, ${NAME:?error} (a placeholder stands for what the user's .env gives). */
function interpolated(text: string): string {
  return text.replace(/\$\{([A-Z_][A-Z0-9_]*)(?::([-?])([^}]*))?\}/g, (_all, _name: string, kind?: string, rest?: string) =>
    kind === "-" ? (rest ?? "") : PLACEHOLDER,
  );
}

function load(file: string): Compose {
  const text = readFileSync(join(ROOT, file), "utf8");
  assert.not.match(text.replace(/^\s*#.*$/gm, ""), /\$(?!\{)[A-Za-z]/, `${file}: a bare $NAME is not compose's syntax (write \${NAME})`);
  return parse(interpolated(text), { merge: true }) as Compose;
}

function envOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env))
    return Object.fromEntries(env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, String(value)]));
}

const isHcd = (service: Service) => service.image?.startsWith("hcd:") === true;

/** The names docs/configuration.md's table lists (every backticked NAME in a row's first cell). */
function documentedSettings(): Set<string> {
  const names = new Set<string>();
  for (const line of readFileSync(join(ROOT, "docs/configuration.md"), "utf8").split("\n")) {
    if (!line.startsWith("|")) continue;
    for (const [, name] of line.split("|")[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(name);
  }
  return names;
}

/** The names the configuration reads from `env` (a secret's NAME_FILE counts as read): throws when it refuses `env`. */
function namesRead(env: Record<string, string>): Set<string> {
  const read = new Set<string>();
  for (const name of SECRET_SETTINGS) if (`${name}_FILE` in env) read.add(`${name}_FILE`);
  const resolved = withSecretFiles(env, (path) => `secret-from-${path.replace(/\W/g, "-")}-0123456789abcdef0123456789`);
  readSettings(
    new Proxy(resolved, {
      get: (target, name) => {
        if (typeof name === "string") read.add(name);
        return target[name as string];
      },
    }),
  );
  return read;
}

for (const file of FILES) {
  test(`${file}: every variable of an hcd service is read by the configuration, valid there, and in docs/configuration.md's table`, () => {
    const compose = load(file);
    const documented = documentedSettings();
    const hcd = Object.entries(compose.services).filter(([, service]) => isHcd(service));
    assert.ok(hcd.length > 0, "an hcd service");
    for (const [name, service] of hcd) {
      const env = envOf(service);
      const read = namesRead(env); // throws a ConfigError naming what it refuses
      for (const variable of Object.keys(env)) {
        assert.ok(read.has(variable), `${file}: ${name} sets ${variable}, which the configuration never reads`);
        assert.ok(documented.has(variable), `${file}: ${name} sets ${variable}, which docs/configuration.md's table does not list`);
      }
    }
  });

  test(`${file}: images, build contexts, volumes, secrets, configs, networks, dependencies and healthchecks are well formed and declared`, () => {
    const compose = load(file);
    const base = dirname(join(ROOT, file));
    const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
    const imageCheck = /^HEALTHCHECK .*CMD (\[.*\])$/m.exec(dockerfile);
    assert.ok(imageCheck, "the Dockerfile has an exec-form HEALTHCHECK");
    for (const [name, service] of Object.entries(compose.services)) {
      const where = `${file}: ${name}`;
      assert.ok(service.image !== undefined, `${where}: an image name`);
      assert.match(service.image, /^[a-z0-9./-]+:[\w.-]+$/, `${where}: a tagged image`);
      assert.not.match(service.image, /:latest$/, `${where}: a pinned tag`);
      if (isHcd(service)) {
        assert.is(service.image, `hcd:${RELEASE}`, `${where}: tagged with the release`);
        const context = typeof service.build === "string" ? service.build : service.build?.context;
        assert.ok(
          context !== undefined && existsSync(join(base, context, "Dockerfile")),
          `${where}: builds from a context holding the Dockerfile`,
        );
        assert.ok(
          (service.volumes ?? []).some((volume) => volume.endsWith(":/data")),
          `${where}: a volume at /data (DATA_DIR)`,
        );
        assert.equal(
          service.healthcheck?.test,
          ["CMD", ...(JSON.parse(imageCheck[1]) as string[])],
          `${where}: the image's own healthcheck`,
        );
      } else {
        // sync_interval is 2.10's; 2.10.20-2.10.22 could lose a whole stream after a crash
        const [major, minor, patch] = (/^nats:(\d+)\.(\d+)(?:\.(\d+))?/.exec(service.image) ?? [])
          .slice(1)
          .map((part) => (part === undefined ? undefined : Number(part)));
        const recent = major !== undefined && (major > 2 || minor! > 10 || (minor === 10 && patch !== undefined && patch >= 23));
        assert.ok(recent, `${where}: nats-server 2.10.23 or newer, its tag saying so: ${service.image}`);
      }
      for (const volume of service.volumes ?? []) {
        const [source, target, mode, ...extra] = volume.split(":");
        assert.is(extra.length, 0, `${where}: volume ${volume}`);
        assert.ok(target !== undefined && isAbsolute(target), `${where}: volume ${volume} mounts at an absolute path`);
        assert.ok(mode === undefined || ["ro", "rw"].includes(mode), `${where}: volume ${volume}'s mode`);
        if (source.startsWith(".") || source.startsWith("/"))
          assert.ok(existsSync(join(base, source)), `${where}: bind source ${source} exists`);
        else assert.ok(compose.volumes !== undefined && source in compose.volumes, `${where}: named volume ${source} is declared`);
      }
      for (const secret of service.secrets ?? [])
        assert.ok(compose.secrets?.[secret] !== undefined, `${where}: secret ${secret} is declared`);
      for (const config of service.configs ?? []) {
        const declared = compose.configs?.[config.source];
        assert.ok(
          declared !== undefined && existsSync(join(base, declared.file)),
          `${where}: config ${config.source} is declared and its file exists`,
        );
      }
      for (const network of service.networks ?? [])
        assert.ok(compose.networks !== undefined && network in compose.networks, `${where}: network ${network}`);
      for (const [other, { condition }] of Object.entries(service.depends_on ?? {})) {
        assert.ok(other in compose.services, `${where}: depends on ${other}, a service of the file`);
        if (condition === "service_healthy")
          assert.ok(compose.services[other].healthcheck !== undefined, `${where}: waits for ${other}'s health, which it checks`);
      }
      const check = service.healthcheck;
      assert.ok(check !== undefined, `${where}: a healthcheck`);
      assert.ok(
        Array.isArray(check.test) && ["CMD", "CMD-SHELL"].includes(check.test[0]) && check.test.length > 1,
        `${where}: healthcheck test ${JSON.stringify(check.test)}`,
      );
      for (const duration of [check.interval, check.timeout, check.start_period])
        assert.ok(duration === undefined || /^(\d+(ms|s|m|h))+$/.test(duration), `${where}: duration ${duration}`);
      assert.ok(check.retries === undefined || (Number.isInteger(check.retries) && check.retries > 0), `${where}: retries`);
    }
  });
}

test("the Dockerfile's HCD_VERSION is package.json's version", () => {
  const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");
  assert.is(/^ARG HCD_VERSION=(\S+)$/m.exec(dockerfile)?.[1], RELEASE);
});

test("cluster.yaml's NATS servers: every variable set is one nats.conf refers to and every one it refers to is set; JetStream syncs every write", () => {
  const compose = load("contrib/compose/cluster.yaml");
  const conf = readFileSync(join(ROOT, "contrib/compose/nats.conf"), "utf8");
  const referred = new Set([...conf.replace(/#.*$/gm, "").matchAll(/\$([A-Z_][A-Z0-9_]*)/g)].map(([, name]) => name));
  assert.match(
    conf.replace(/#.*$/gm, ""),
    /jetstream\s*\{[^}]*\bsync_interval:\s*always\b[^}]*\}/,
    "sync_interval: always in the jetstream block",
  );
  const servers = Object.entries(compose.services).filter(([, service]) => !isHcd(service));
  assert.is(servers.length, 3, "three NATS servers");
  for (const [name, service] of servers) {
    const env = envOf(service);
    assert.equal(new Set(Object.keys(env)), referred, `${name}: the variables nats.conf refers to`);
    assert.is(env.NATS_SERVER_NAME, name);
    for (const [, other] of servers.entries())
      assert.ok(
        Object.values(env).includes(`nats-route://route:${env.NATS_ROUTE_PASSWORD}@${other[0]}:6222`),
        `${name}: a route to ${other[0]}`,
      );
  }
  // the hcd nodes reach every server with the clients' password, and each has its own NODE_ID
  const nodes = Object.entries(compose.services).filter(([, service]) => isHcd(service));
  assert.is(nodes.length, 3, "three hcd nodes");
  assert.is(new Set(nodes.map(([, service]) => envOf(service).NODE_ID)).size, 3);
  for (const [name, service] of nodes) {
    const settings = readSettings(withSecretFiles(envOf(service), () => "admin-token-from-a-secret-0123456789"));
    assert.equal(
      settings.cluster?.natsUrls,
      servers.map(([server]) => `nats://${server}:4222`),
      `${name}: every server`,
    );
    assert.is(settings.cluster?.natsPassword, envOf(servers[0][1]).HCD_NATS_PASSWORD, `${name}: the password the servers take`);
  }
});

test("cluster.yaml's nats.conf is a valid nats-server configuration with the servers' environment (when nats-server is installed)", () => {
  const probe = spawnSync("nats-server", ["--version"], { encoding: "utf8" });
  if (probe.status !== 0) {
    if (process.env.HCD_REQUIRE_EXTRAS === "1") throw new Error("nats-server is not installed (HCD_REQUIRE_EXTRAS=1)");
    console.log("SKIP: nats.conf checked by nats-server: nats-server not installed");
    return;
  }
  const [, minor] = /v2\.(\d+)/.exec(probe.stdout) ?? [];
  let conf = readFileSync(join(ROOT, "contrib/compose/nats.conf"), "utf8");
  // an older nats-server than the file needs (Debian 12 has 2.9) knows every other line: check those
  if (Number(minor) < 10) conf = conf.replace(/^\s*sync_interval: always\s*$/m, "");
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, "nats.conf"), conf.replace("store_dir: /data", `store_dir: ${join(dir.path, "store")}`));
    const compose = load("contrib/compose/cluster.yaml");
    const env = envOf(compose.services["nats-1"]);
    const checked = spawnSync("nats-server", ["-c", join(dir.path, "nats.conf"), "-t"], {
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    assert.is(checked.status, 0, checked.stdout + checked.stderr);
    const missing = spawnSync("nats-server", ["-c", join(dir.path, "nats.conf"), "-t"], {
      env: { PATH: process.env.PATH },
      encoding: "utf8",
    });
    assert.is.not(missing.status, 0, "without the compose file's variables the configuration is refused (they are what it reads)");
  } finally {
    dir.remove();
  }
});

test.run();
