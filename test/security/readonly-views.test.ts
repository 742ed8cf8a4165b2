// What read-only viewers see, against a real server: a readonly user and a read-only key session, crawled
// over every dashboard page they reach, see no check uuid and no ping key anywhere (a uuid is a ping URL),
// the audit log included, where a readonly user reads each check's unique_key in its place; members see ping
// URLs with the ping key, as the reference's members do, and managers the API keys too. Who reads the audit
// log: users from readonly up, the admin token and the read-write key; never the read-only key.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { crawlForms } from "../http/dashboard-crawl.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { getPage, signInKey, signInUser } from "./form-client.ts";

const TOKEN = "readonly-views-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a viewer's password";

const dir = tempDir();
let server: RealServer;
let project: ProjectJson;
const uuids: string[] = [];
const cookies: Record<"readonly" | "member" | "manager" | "readOnlyKey" | "readWriteKey", string> = {
  readonly: "",
  member: "",
  manager: "",
  readOnlyKey: "",
  readWriteKey: "",
};

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  project = await createProject(server, TOKEN, { name: "Viewed" });
  for (const body of [{ name: "nightly", slug: "nightly" }, { name: "hourly" }]) {
    const { uuid } = await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body }));
    uuids.push(uuid);
    await call(server.url, "GET", `/ping/${uuid}`);
    await ok(call(server.url, "POST", `/api/v3/checks/${uuid}/pause`, { key: project.api_key })); // events in the audit log
  }
  for (const role of ["readonly", "member", "manager"] as const) {
    const user = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: `${role}@corp.example`, password: PASSWORD } }),
    );
    await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role } }));
    cookies[role] = (await signInUser(server, `${role}@corp.example`, PASSWORD)).cookie;
  }
  cookies.readOnlyKey = await signInKey(server.url, project.api_key_readonly);
  cookies.readWriteKey = await signInKey(server.url, project.api_key);
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

for (const viewer of ["readonly", "readOnlyKey"] as const) {
  test(`${viewer}: no page it reaches shows a check uuid or the ping key`, async () => {
    const { pages } = await crawlForms(server.url, cookies[viewer]);
    const visited = [...pages, `${server.url}/projects/${project.id}/checks/rows`, `${server.url}/projects/${project.id}/audit`];
    assert.ok(
      pages.some((page) => page.includes(`/checks/${uniqueKeyOf(uuids[0])}`)),
      `the crawl reached a check's page: ${pages.join(" ")}`,
    );
    const leaks: string[] = [];
    for (const url of visited) {
      const { text } = await getPage(server.url, new URL(url).pathname, cookies[viewer]);
      for (const secret of [...uuids, project.ping_key]) if (text.includes(secret)) leaks.push(`${url}: ${secret}`);
    }
    assert.equal(leaks, [], `${visited.length} pages read`);
  });
}

test("a readonly user reads the audit log, with the emails and each check's unique_key for its uuid", async () => {
  const audit = await getPage(server.url, `/projects/${project.id}/audit`, cookies.readonly);
  assert.is(audit.status, 200);
  assert.match(audit.text, `check &quot;nightly&quot; ${uniqueKeyOf(uuids[0])}`);
  assert.not.match(audit.text, uuids[0]);
  assert.match(
    (await getPage(server.url, `/projects/${project.id}/checks`, cookies.readonly)).text,
    `/projects/${project.id}/audit`,
    "the nav links it",
  );
});

test("the read-only key does not read the audit log; the read-write key and the admin token do, with uuids", async () => {
  const refused = await getPage(server.url, `/projects/${project.id}/audit`, cookies.readOnlyKey);
  assert.is(refused.status, 403);
  assert.not.match((await getPage(server.url, `/projects/${project.id}/checks`, cookies.readOnlyKey)).text, '/audit"', "no link to it");
  const readWrite = await getPage(server.url, `/projects/${project.id}/audit`, cookies.readWriteKey);
  assert.is(readWrite.status, 200);
  assert.match(readWrite.text, uuids[0]);
});

test("a member sees the ping URLs with the ping key (check page and settings) but not the API keys; a manager sees those too", async () => {
  const check = await getPage(server.url, `/checks/${uuids[0]}`, cookies.member);
  assert.match(check.text, `/ping/${uuids[0]}`);
  assert.match(check.text, `/ping/${project.ping_key}/nightly`);
  const settings = await getPage(server.url, `/projects/${project.id}/settings`, cookies.member);
  assert.match(settings.text, project.ping_key);
  assert.not.match(settings.text, project.api_key);
  assert.not.match(settings.text, project.api_key_readonly);
  const managers = await getPage(server.url, `/projects/${project.id}/settings`, cookies.manager);
  for (const key of [project.api_key, project.api_key_readonly, project.ping_key]) assert.match(managers.text, key);
});

test.run();
