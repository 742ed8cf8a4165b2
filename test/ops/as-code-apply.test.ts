// `hcd apply -f` against a real server over real HTTP (real LMDB): --dry-run changes nothing even with
// deletions planned; --prune deletes only what a section of the file leaves out; ${NAME} is read from the
// environment and a missing one stops everything; a bad file is refused with each problem's line and path;
// a run that fails half-way says what it did, and a run again completes it; a DATA_DIR in use is refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { tempDir } from "../helpers.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { adminCall, everything, hcdIn, remote, richProject, SERVER_ENV } from "./as-code-rig.ts";

type Json = Record<string, unknown>;

let server: RealServer;
let dir: { path: string; remove: () => void };

test.before(async () => {
  dir = tempDir();
  server = await startServer({ dataDir: join(dir.path, "data"), env: SERVER_ENV });
});

test.after(async () => {
  assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

test("--dry-run changes nothing, with creations, changes and deletions planned; --prune deletes only what a section leaves out", async () => {
  const rich = await richProject(server);
  const exported = parse((await hcdIn(["export", "--include-secrets", ...remote(server)])).stdout) as { projects: Json[] };
  const project = exported.projects[0] as { checks: Json[]; channels: Json[]; status_pages: Json[]; maintenance?: Json[] } & Json;
  project.check_limit = 60;
  project.checks = project.checks
    .filter((c) => c.uuid !== rich.checks.bare)
    .map((c) => (c.slug === "hourly-sync" ? { ...c, grace: 600 } : c));
  project.checks.push({ slug: "new-one", name: "New one", schedule: "0 4 * * *", channels: ["mail", "pager2"] });
  project.channels.push({ name: "pager2", kind: "pd", value: { service_key: "another" } });
  project.status_pages = project.status_pages.filter((p) => p.slug !== "rich-internal");
  delete project.maintenance; // not managed: left as it is, even with --prune
  const file = join(dir.path, "changed.json"); // JSON is YAML too
  writeFileSync(file, JSON.stringify(exported));

  const before = await everything(server);
  const dry = await hcdIn(["apply", "-f", file, "--dry-run", "--prune", ...remote(server)]);
  assert.is(dry.status, 0, dry.stderr);
  assert.equal(
    dry.stdout.split("\n").filter((l) => /^ {2}[+~-] /.test(l)),
    [
      '  ~ update project "rich": check_limit 50 → 60',
      '  + create channel "pager2" (pd) in project "rich"',
      '  + create check "new-one" in project "rich"',
      '  ~ update check "hourly-sync" in project "rich": grace 300 → 600',
      '  - delete status page "rich-internal" in project "rich"',
      `  - delete check ${JSON.stringify(rich.checks.bare)} in project "rich"`,
    ],
  );
  assert.match(dry.stdout, /Dry run: nothing was changed\./);
  assert.is(await everything(server), before, "a dry run changes nothing");

  const kept = await hcdIn(["apply", "-f", file, ...remote(server)]);
  assert.is(kept.status, 0, kept.stderr);
  assert.match(kept.stdout, /Not in the file, kept \(--prune deletes them\): 2/);
  const base = `/admin/v1/projects/${rich.project.id}`;
  assert.is(
    (await adminCall<Json>(server, "GET", `${base}/checks/${rich.checks.bare}`)).uuid,
    rich.checks.bare,
    "without --prune nothing is deleted",
  );
  assert.is((await adminCall<Json>(server, "GET", `${base}/checks/hourly-sync`)).grace, 600);
  assert.is((await adminCall<Json>(server, "GET", base)).check_limit, 60, "the project's limit changed");
  const made = await adminCall<Json>(server, "GET", `${base}/checks/new-one`);
  assert.equal([made.schedule, made.tz, made.timeout], ["0 4 * * *", "UTC", undefined]);

  const pruned = await hcdIn(["apply", "-f", file, "--prune", ...remote(server)]);
  assert.is(pruned.status, 0, pruned.stderr);
  const { checks } = await adminCall<{ checks: Json[] }>(server, "GET", `${base}/checks`);
  assert.not.ok(
    checks.some((c) => c.uuid === rich.checks.bare),
    "--prune deleted the check the file leaves out",
  );
  assert.equal(
    (await adminCall<{ status_pages: Json[] }>(server, "GET", `${base}/status-pages`)).status_pages.map((p) => p.slug),
    ["rich-public"],
  );
  assert.equal(
    (await adminCall<{ maintenance: Json[] }>(server, "GET", `${base}/maintenance`)).maintenance.map((w) => w.name),
    ["patch night", "month end"],
    "a section left out is not managed",
  );
  const after = await hcdIn(["apply", "-f", file, "--prune", ...remote(server)]);
  assert.equal(after.stdout.trim(), "No changes: hcd matches the file.", "idempotent");
});

test("${NAME} is read from the environment (a whole number too, $${ stays literal); a missing one is named and nothing changes", async () => {
  const file = join(dir.path, "env.yaml");
  writeFileSync(
    file,
    [
      "projects:",
      "  - name: env",
      "    channels:",
      "      - name: hook",
      "        kind: webhook",
      '        value: {url_down: "https://hooks.example.com/${HOOK_PATH}", body_down: "$${kept} $NAME", headers_down: {Authorization: "Bearer ${HOOK_TOKEN}"}}',
      "    checks:",
      "      - slug: envy",
      "        timeout: ${TIMEOUT}",
      "        manual_resume: ${RESUME}",
      "        channels: [hook]",
      "",
    ].join("\n"),
  );
  const before = await everything(server);
  const missing = await hcdIn(["apply", "-f", file, ...remote(server)], { HOOK_PATH: "x", RESUME: "true" });
  assert.is(missing.status, 1);
  assert.match(
    missing.stderr,
    /env\.yaml:6: projects\[0\]\.channels\[0\]\.value\.headers_down\.Authorization: the environment variable HOOK_TOKEN is not set/,
  );
  assert.match(missing.stderr, /env\.yaml:9: projects\[0\]\.checks\[0\]\.timeout: the environment variable TIMEOUT is not set/);
  assert.is(missing.stdout, "", "no plan, no change");
  assert.is(await everything(server), before);

  const env = { HOOK_PATH: "p/q", HOOK_TOKEN: "t0ken", TIMEOUT: "7200", RESUME: "true" };
  const applied = await hcdIn(["apply", "-f", file, ...remote(server)], env);
  assert.is(applied.status, 0, applied.stderr);
  assert.not.ok(applied.stdout.includes("t0ken"), "a secret never appears in the plan or the changes");
  const { projects } = await adminCall<{ projects: Json[] }>(server, "GET", "/admin/v1/projects");
  const base = `/admin/v1/projects/${String(projects.find((p) => p.name === "env")?.id)}`;
  const { channels } = await adminCall<{ channels: Json[] }>(server, "GET", `${base}/channels`);
  const hook = await adminCall<{ value: Json }>(server, "GET", `${base}/channels/${String(channels[0].id)}`);
  assert.equal(
    [hook.value.url_down, hook.value.body_down, hook.value.headers_down],
    ["https://hooks.example.com/p/q", "${kept} $NAME", { Authorization: "Bearer t0ken" }],
  );
  const check = await adminCall<Json>(server, "GET", `${base}/checks/envy`);
  assert.equal([check.timeout, check.manual_resume], [7200, true]);
  const again = await hcdIn(["apply", "-f", file, "--dry-run", ...remote(server)], env);
  assert.equal(
    again.stdout.trim().split("\n")[0],
    "No changes: hcd matches the file.",
    "a value written short (no method, no up direction) is compared as the server stores it",
  );
  const changed = await hcdIn(["apply", "-f", file, "--dry-run", ...remote(server)], { ...env, HOOK_TOKEN: "rotated" });
  assert.match(changed.stdout, /~ update channel "hook" \(webhook\) in project "env": value$/m, "a changed secret is a change, not shown");
  assert.not.ok(changed.stdout.includes("rotated"));
});

test("a bad file is refused before any request, each problem with its line and path", async () => {
  const before = await everything(server);
  const cases: [string, RegExp[]][] = [
    [
      [
        "projects:",
        "  - name: p",
        "    checks:",
        "      - slug: a",
        "        grace: 5",
        "        timeout: 60",
        "        schedule: '* * * * *'",
        "        colour: red",
        "      - name: no key",
        "    channels:",
        "      - {name: m, kind: email, value: 5}",
        "      - {name: s, kind: sms, value: {phone: '+15551234567', notify_up: 'no'}}",
        "      - {name: x, kind: pigeon, value: coo}",
      ].join("\n"),
      [
        /bad\.yaml:4: projects\[0\]\.checks\[0\]: has an unknown field: colour/,
        /bad\.yaml:5: projects\[0\]\.checks\[0\]\.grace: must be >= 60/,
        /bad\.yaml:4: projects\[0\]\.checks\[0\]: has both timeout and schedule/,
        /bad\.yaml:11: projects\[0\]\.channels\[0\]\.value: must be string/,
        /bad\.yaml:12: projects\[0\]\.channels\[1\]\.value\.notify_up: must be boolean/,
        /bad\.yaml:13: projects\[0\]\.channels\[2\]\.kind: must be one of: "email"/,
      ],
    ],
    [
      [
        "projects:",
        "  - name: p",
        "    channels:",
        "      - {name: m, kind: email, value: a@b.c}",
        "      - {name: m, kind: email, value: b@b.c}",
        "    checks:",
        "      - {slug: a, channels: [m, nope], depends_on: [b]}",
        "      - {slug: b, depends_on: [a], tz: Europe/Riga, schedule: '0 3 * * *'}",
        "      - {slug: c, schedule: 'not cron'}",
        "      - {name: no key}",
        "    maintenance:",
        "      - {name: w, schedule: '0 2 * * *', tz: Mars/Base, duration: 3600}",
      ].join("\n"),
      [
        /bad\.yaml:5: projects\[0\]\.channels\[1\]: has the same name \(give each its id\) as projects\[0\]\.channels\[0\]: m/,
        /bad\.yaml:7: projects\[0\]\.checks\[0\]\.channels\[0\]: names 2 channels \(m\): name it by its id/,
        /bad\.yaml:7: projects\[0\]\.checks\[0\]\.channels\[1\]: names no channel of this project: nope/,
        /projects\[0\]\.checks\[0\]: depends on itself through a → b → a/,
        /bad\.yaml:9: projects\[0\]\.checks\[2\]\.schedule: is not a valid cron or OnCalendar expression/,
        /bad\.yaml:10: projects\[0\]\.checks\[3\]: needs a uuid or a slug/,
        /bad\.yaml:12: projects\[0\]\.maintenance\[0\]\.tz: is not a valid timezone/,
      ],
    ],
    ["projects:\n  - name: p\n    checks: [\n", [/bad\.yaml:4: /]],
    ["projects:\n  - name: p\n  - name: p\n  name: dup\n", [/bad\.yaml/]],
    [
      "version: 2\nprojects: []\nextra: 1\n",
      [/bad\.yaml:1: version: must be equal to constant/, /bad\.yaml:1: : has an unknown field: extra|: has an unknown field: extra/],
    ],
  ];
  for (const [text, expected] of cases) {
    const file = join(dir.path, "bad.yaml");
    writeFileSync(file, text);
    const run = await hcdIn(["apply", "-f", file, ...remote(server)]);
    assert.is(run.status, 1, text);
    for (const pattern of expected) assert.match(run.stderr, pattern, `${pattern} in:\n${run.stderr}`);
    assert.is(run.stdout, "");
  }
  assert.is(await everything(server), before, "nothing changed");
  const usage = await hcdIn(["apply", ...remote(server)]);
  assert.is(usage.status, 2);
  assert.match(usage.stderr, /apply needs -f FILE/);
});

test("a run that fails half-way says what was applied and what not; once the cause is gone, a run again completes it", async () => {
  const taken = "0aa0aa0a-0000-4000-8000-00000000000b";
  const other = await adminCall<Json>(server, "POST", "/admin/v1/projects", { name: "other" });
  await adminCall(server, "POST", `/admin/v1/projects/${String(other.id)}/checks`, { uuid: taken, name: "theirs" });
  const file = join(dir.path, "half.yaml");
  writeFileSync(
    file,
    [
      "projects:",
      "  - name: half",
      "    channels:",
      "      - {name: mail, kind: email, value: ops@example.com}",
      "    checks:",
      "      - {slug: first, channels: [mail]}",
      `      - {uuid: ${taken}, slug: second}`,
      "      - {slug: third, depends_on: [second]}",
      "    status_pages:",
      "      - {slug: half-page, title: Half, checks: [first, third]}",
      "",
    ].join("\n"),
  );
  const failed = await hcdIn(["apply", "-f", file, ...remote(server)]);
  assert.is(failed.status, 1);
  assert.match(failed.stdout, /^created check "first" in project "half"/m);
  assert.match(
    failed.stdout,
    /^failed: create check "second" in project "half": POST \/admin\/v1\/projects\/[0-9a-f-]+\/checks: 400 json validation error: uuid is taken by another check$/m,
  );
  assert.match(
    failed.stdout,
    /^Applied 3 of 6 changes; not applied:\n {2}\+ create check "second" in project "half"\n {2}\+ create check "third" in project "half"\n {2}\+ create status page "half-page" in project "half"$/m,
  );
  await adminCall(server, "DELETE", `/admin/v1/projects/${String(other.id)}/checks/${taken}`);
  const completed = await hcdIn(["apply", "-f", file, ...remote(server)]);
  assert.is(completed.status, 0, completed.stderr + completed.stdout);
  assert.equal(
    completed.stdout.split("\n").filter((l) => /^ {2}[+~-] /.test(l)),
    [
      `  + create check "second" in project "half": uuid ${taken}`,
      '  + create check "third" in project "half"',
      '  + create status page "half-page" in project "half"',
    ],
    "only what was missing",
  );
  const { projects } = await adminCall<{ projects: Json[] }>(server, "GET", "/admin/v1/projects");
  const half = String(projects.find((p) => p.name === "half")?.id);
  assert.equal((await adminCall<Json>(server, "GET", `/admin/v1/projects/${half}/checks/${taken}`)).slug, "second");
  assert.equal((await hcdIn(["apply", "-f", file, ...remote(server)])).stdout.trim(), "No changes: hcd matches the file.");
});

test("a status page's description, logo and groups: made, changed and taken away by a file; a file without them (an older one) keeps them; a group's check not on the page is refused by name", async () => {
  const file = join(dir.path, "pages.yaml");
  const write = (page: string[]) =>
    writeFileSync(
      file,
      ["projects:", "  - name: pages", "    checks:", "      - {slug: web}", "      - {slug: db}", "    status_pages:", ...page, ""].join(
        "\n",
      ),
    );
  const pageOf = async () => {
    const { projects } = await adminCall<{ projects: Json[] }>(server, "GET", "/admin/v1/projects");
    const id = String(projects.find((p) => p.name === "pages")?.id);
    const uuids = Object.fromEntries(
      (await adminCall<{ checks: Json[] }>(server, "GET", `/admin/v1/projects/${id}/checks`)).checks.map((c) => [c.slug, c.uuid]),
    );
    const page = (await adminCall<{ status_pages: Json[] }>(server, "GET", `/admin/v1/projects/${id}/status-pages`)).status_pages[0];
    const name = (uuid: unknown) => Object.keys(uuids).find((slug) => uuids[slug] === uuid);
    const groups = page.groups as { name: string; checks: string[] }[] | undefined;
    return { description: page.description, logo: page.logo, groups: groups?.map((g) => [g.name, g.checks.map(name)]) };
  };
  const plan = async () => (await hcdIn(["apply", "-f", file, ...remote(server)])).stdout.split("\n").filter((l) => /^ {2}[+~-] /.test(l));

  write([
    "      - slug: pg",
    "        title: P",
    '        description: "Two\\nlines"',
    "        logo: https://cdn.example.com/pg.png",
    "        checks: [web, db]",
    "        groups: [{name: Storage, checks: [db]}]",
  ]);
  assert.equal(await plan(), [
    '  + create project "pages"',
    '  + create check "web" in project "pages"',
    '  + create check "db" in project "pages"',
    '  + create status page "pg" in project "pages"',
  ]);
  assert.equal(await pageOf(), { description: "Two\nlines", logo: "https://cdn.example.com/pg.png", groups: [["Storage", ["db"]]] });

  write(["      - {slug: pg, title: P, checks: [web, db]}"]); // as files were written before pages had them
  assert.equal(await plan(), [], "an older file changes neither");
  assert.equal(await pageOf(), { description: "Two\nlines", logo: "https://cdn.example.com/pg.png", groups: [["Storage", ["db"]]] });

  write(["      - {slug: pg, title: P, checks: [web, db], groups: [{name: Front, checks: [web]}, {name: Storage, checks: [db]}]}"]);
  assert.equal(await plan(), ['  ~ update status page "pg" in project "pages": groups']);
  assert.equal(await pageOf(), {
    description: "Two\nlines",
    logo: "https://cdn.example.com/pg.png",
    groups: [
      ["Front", ["web"]],
      ["Storage", ["db"]],
    ],
  });

  write(["      - {slug: pg, title: P, description: '', logo: '', checks: [web, db], groups: []}"]);
  assert.equal(await plan(), ['  ~ update status page "pg" in project "pages": description; logo; groups']);
  assert.equal(await pageOf(), { description: undefined, logo: undefined, groups: undefined });
  assert.equal((await hcdIn(["apply", "-f", file, ...remote(server)])).stdout.trim(), "No changes: hcd matches the file.");

  write(["      - {slug: pg, title: P, checks: [web], groups: [{name: Storage, checks: [db]}]}"]);
  const before = await everything(server);
  const refused = await hcdIn(["apply", "-f", file, ...remote(server)]);
  assert.is(refused.status, 1);
  assert.match(refused.stderr, /status_pages\[0\]\.groups: group "Storage" names "db", which is not one of the page's checks/);
  assert.is(await everything(server), before);
});

test("without --url on a DATA_DIR a server is running on, apply is refused and changes nothing", async () => {
  const file = join(dir.path, "one.yaml");
  writeFileSync(file, "projects:\n  - name: one\n");
  const before = await everything(server);
  const refused = await hcdIn(["apply", "-f", file], { DATA_DIR: join(dir.path, "data") });
  assert.is(refused.status, 1);
  assert.match(refused.stderr, /in use/);
  assert.is(await everything(server), before);
});

test.run();
