// The audit log of changes made through the dashboard of a real server, over loopback without a browser:
// each change is recorded with the session's actor (the admin token, or the project key it was opened
// with); "Ping now", page views and refused forms are not; the audit log page lists them, text escaped.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { session } from "../dashboard/form-session.ts";

const TOKEN = "audit-dashboard-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const CHECK_FORM = {
  slug: "",
  tags: "",
  desc: "",
  kind: "simple",
  timeout: "60",
  grace: "60",
  schedule: "",
  tz: "UTC",
  failure_threshold: "1",
  reminder_interval: "0",
  muted_until: "",
  max_duration: "0",
};
type Page = { events: { at: string; actor: string; action: string; target: string }[]; next: string | null };

test("each change through the dashboard is recorded with the session's actor; Ping now, views and refused forms are not", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" } });
  try {
    const project = await createProject(server, TOKEN, { name: "Ops" });
    const base = `/projects/${project.id}`;
    const root = await session(server.url, TOKEN);
    const rw = await session(server.url, project.api_key);
    const ro = await session(server.url, project.api_key_readonly);
    const redirected = (answer: { status: number; text: string }) => assert.is(answer.status, 303, answer.text.slice(0, 300));

    // the admin token's changes
    const made = await root.post("/projects", { name: "Made here" });
    redirected(made);
    const madeId = /\/projects\/([^/]+)\/checks/.exec(made.location ?? "")?.[1] ?? "";
    redirected(await root.post(`${base}/integrations`, { kind: "webhook", name: "hook", value: "http://127.0.0.1:9/x" }));
    const {
      channels: [channel],
    } = await ok<{ channels: { id: string }[] }>(call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers: admin }));
    redirected(await root.post(`${base}/integrations/${channel.id}/edit`, { name: "hook 2", value: "http://127.0.0.1:9/y" }));
    redirected(await root.post(`${base}/mute`, { until: "2099-01-01T00:00:00Z" }));
    redirected(await root.post(`${base}/mute`, { until: "" }));
    redirected(await root.post(`${base}/maintenance`, { name: "nightly", schedule: "0 3 * * *", tz: "UTC", duration: "3600" }));
    const { maintenance } = await ok<{ maintenance: { id: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/maintenance`, { headers: admin }),
    );
    redirected(await root.post(`${base}/maintenance/${maintenance[0].id}/delete`, {}));

    // the read-write key's changes
    const created = await rw.post(`${base}/checks/new`, { ...CHECK_FORM, name: "job" });
    redirected(created);
    const uuid = /\/checks\/([0-9a-f-]{36})/.exec(created.location ?? "")?.[1] ?? "";
    redirected(await rw.post(`/checks/${uuid}/edit`, { ...CHECK_FORM, name: "job <b>2</b>" }));
    redirected(await rw.post(`/checks/${uuid}/integrations`, { channel: channel.id, on: "1" }));
    redirected(await rw.post(`/checks/${uuid}/pause`, {}));
    redirected(await rw.post(`/checks/${uuid}/resume`, {}));
    // not changes, or refused: nothing recorded
    redirected(await rw.post(`/checks/${uuid}/ping`, {}));
    assert.is((await rw.page(`/checks/${uuid}`)).status, 200);
    assert.is((await rw.post(`/checks/${uuid}/pause`, {}, false)).status, 403, "no CSRF token");
    assert.is((await ro.post(`/checks/${uuid}/pause`, {})).status, 403, "a read-only session");
    assert.is((await rw.post(`${base}/mute`, { until: "" })).status, 403, "only the admin token mutes");
    assert.is((await rw.post(`/checks/${uuid}/edit`, { ...CHECK_FORM, name: "x", timeout: "1" })).status, 400);
    assert.is((await rw.post(`/checks/${uuid}/acknowledge`, {})).status, 409, "not down");
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 600 } })); // down: acknowledgeable
    redirected(await rw.post(`/checks/${uuid}/acknowledge`, {}));
    redirected(await rw.post(`/checks/${uuid}/delete`, {}));
    redirected(await root.post(`${base}/integrations/${channel.id}/remove`, {}));

    const audit = (id: string) => ok<Page>(call(server.url, "GET", `/admin/v1/projects/${id}/audit`, { headers: admin }));
    const lines = (page: Page) => page.events.map((e) => `${e.actor} | ${e.action} | ${e.target}`);
    const key = "API key (read-write)";
    const job = `check "job <b>2</b>" ${uuid}`;
    assert.equal(lines(await audit(project.id)), [
      `admin token | channel.removed | webhook integration "hook 2" ${channel.id}`,
      `${key} | check.deleted | ${job}`,
      `${key} | check.acknowledged | ${job}`,
      `${key} | check.resumed | ${job}`,
      `${key} | check.paused | ${job}`,
      `${key} | check.updated | ${job}`,
      `${key} | check.updated | ${job}`,
      `${key} | check.created | check "job" ${uuid}`,
      `admin token | maintenance.removed | maintenance window "nightly" ${maintenance[0].id}`,
      `admin token | maintenance.added | maintenance window "nightly" ${maintenance[0].id}`,
      `admin token | project.unmuted | project "Ops" ${project.id}`,
      `admin token | project.muted | project "Ops" ${project.id}`,
      `admin token | channel.updated | webhook integration "hook 2" ${channel.id}`,
      `admin token | channel.added | webhook integration "hook" ${channel.id}`,
      `admin token | project.created | project "Ops" ${project.id}`,
    ]);
    assert.equal(lines(await audit(madeId)), [`admin token | project.created | project "Made here" ${madeId}`]);

    // the page: every row, the check's name as text
    const shown = await rw.page(`${base}/audit`);
    assert.is(shown.status, 200);
    assert.is((shown.text.match(/<tr><td><time/g) ?? []).length, 15);
    assert.match(shown.text, "job &lt;b&gt;2&lt;/b&gt;");
    assert.not.match(shown.text, "<b>2</b>");
    assert.is((await rw.page(`${base}/audit?limit=0`)).status, 400);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
