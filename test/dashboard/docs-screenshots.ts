// `npm run screenshots`: the pictures of every dashboard page in docs/screenshots/ (shown in docs/dashboard-and-teams.md),
// taken in Chromium from a real hcd with a small example project: checks up, late, down, paused and new,
// an integration, a maintenance window and a status page; the account page as a member signed in with
// email and password. Each picture is the visible part of
// the page at 1100x760 (the phone one at 390x760), so the files stay small.
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { launchChromium, newContext, signIn, signInWithPassword } from "./browser-harness.ts";

const OUT = fileURLToPath(new URL("../../../docs/screenshots/", import.meta.url));
const TOKEN = "screenshots-admin-token-0123456789abcdef";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "screenshots-member-password";

const dir = tempDir();
const server = await startServer({
  dataDir: dir.path,
  env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" },
});
const browser = await launchChromium();
try {
  mkdirSync(OUT, { recursive: true });
  const project = await createProject(server, TOKEN, { name: "Backups and reports" });
  const key = project.api_key;
  await addChannel(server, TOKEN, project.id, { kind: "email", name: "On-call", value: "oncall@example.com" });
  const create = (body: Record<string, unknown>) =>
    ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key, body: { channels: "*", ...body } }));
  const nightly = await create({
    name: "nightly-backup",
    tags: "prod db",
    timeout: 86_400,
    grace: 3_600,
    desc: "pg_dump of the main database to object storage",
  });
  const reports = await create({ name: "weekly-report", schedule: "0 6 * * 1", tz: "Europe/Berlin", grace: 3_600 });
  const sync = await create({ name: "inventory-sync", timeout: 300, grace: 120, tags: "prod" });
  const cleanup = await create({ name: "tmp-cleanup", timeout: 3_600, grace: 600 });
  await create({ name: "cert-renewal", schedule: "0 3 * * *", grace: 7_200 });
  for (const check of [nightly, reports, sync, cleanup]) await call(server.url, "POST", `/ping/${check.uuid}/start`, {});
  await call(server.url, "POST", `/ping/${nightly.uuid}`, { body: "dumped 3.2 GB in 41 s" });
  await call(server.url, "POST", `/ping/${reports.uuid}`, {});
  await call(server.url, "POST", `/ping/${sync.uuid}/fail`, { body: "connection refused" });
  await ok(call(server.url, "POST", `/api/v3/checks/${cleanup.uuid}/pause`, { key }));
  await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 600 } }));
  await call(server.url, "POST", `/ping/${nightly.uuid}`, {});
  await ok(
    call(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
      headers: admin,
      body: {
        slug: "backups",
        title: "Backups",
        description: "Nightly database dumps and the jobs that feed the weekly report.",
        checks: [nightly.uuid, reports.uuid, sync.uuid],
        groups: [
          { name: "Databases", checks: [nightly.uuid] },
          { name: "Reports", checks: [reports.uuid, sync.uuid] },
        ],
      },
    }),
  );
  await ok(
    call(server.url, "POST", `/admin/v1/projects/${project.id}/maintenance`, {
      headers: admin,
      body: { name: "Database upgrade", schedule: "0 2 * * 0", tz: "UTC", duration: 7_200 },
    }),
  );

  const page = await (await newContext(browser, { viewport: { width: 1100, height: 760 } })).newPage();
  const shot = async (name: string, path: string, prepare?: (page: Page) => Promise<void>) => {
    await page.goto(server.url + path);
    await prepare?.(page);
    await page.screenshot({ path: `${OUT}${name}.png` });
    console.log(`docs/screenshots/${name}.png  ${path}`);
  };
  await shot("sign-in", "/");
  await signIn(page, server.url, TOKEN);
  const p = `/projects/${project.id}`;
  await shot("checks", `${p}/checks`);
  await shot("check", `/checks/${nightly.uuid}`);
  await shot("check-edit", `/checks/${reports.uuid}/edit`);
  await shot("check-new", `${p}/checks/new`);
  await shot("integrations", `${p}/integrations`);
  await shot("projects", "/");
  await shot("project-settings", `${p}/settings`);
  await shot("project-manage", `${p}/manage`);
  await shot("members", `${p}/members`);
  await shot("audit", `${p}/audit`);
  await shot("status-pages", `${p}/status-pages`);
  await shot("status-page", "/status/backups");
  await shot("not-found", "/no/such/page");
  // the account page is a person's (the admin token has none): a member who signs in with email and password
  const member = await ok<{ id: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "dana@example.com", password: PASSWORD } }),
  );
  await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${member.id}`, { headers: admin, body: { role: "member" } }));
  const person = await (await newContext(browser, { viewport: { width: 1100, height: 760 } })).newPage();
  await signInWithPassword(person, server.url, "dana@example.com", PASSWORD);
  await person.goto(server.url + "/account");
  await person.screenshot({ path: `${OUT}account.png` });
  console.log("docs/screenshots/account.png  /account (signed in as a member)");
  const phone = await (await newContext(browser, { viewport: { width: 390, height: 760 }, isMobile: true })).newPage();
  await signIn(phone, server.url, TOKEN);
  await phone.goto(server.url + `${p}/checks`);
  await phone.screenshot({ path: `${OUT}checks-phone.png` });
  console.log("docs/screenshots/checks-phone.png");
} finally {
  await browser.close();
  await stopServer(server);
  dir.remove();
}
