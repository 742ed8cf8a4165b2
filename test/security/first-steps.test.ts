// Small dashboard words on a real server over HTTP: an empty project's checks page says how to add the
// first check (a filter that finds nothing still says "No checks match."), and "Ping now" on a check that
// reads bodies without a success keyword points at the Edit form's field, not at the API; a readonly user's
// refusals name their role, not a "read-only key" they never had; an acknowledged outage names who did it,
// and the downtime table lists no month before the check existed; a member is told how a script makes checks
// with the ping key (API keys are a manager's).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInKey, signInUser } from "./form-client.ts";

const TOKEN = "first-steps-admin-token-0123456789ab";

let server: RealServer;
const dir = tempDir();
test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

test("an empty project says how to add the first check; an empty filter result says no check matches", async () => {
  const project = await createProject(server, TOKEN, { name: "Empty" });
  const cookie = await signInKey(server.url, TOKEN);
  const empty = await getPage(server.url, `/projects/${project.id}/checks`, cookie);
  assert.is(empty.status, 200);
  assert.match(empty.text, `No checks yet. "Add check" makes the first one`);
  assert.not.match(empty.text, "No checks match.");
  const filtered = await getPage(server.url, `/projects/${project.id}/checks?q=nothing-like-this`, cookie);
  assert.match(filtered.text, "No checks match.");
});

test("Ping now refused on a check reading bodies without a success keyword names the Edit form's field", async () => {
  const project = await createProject(server, TOKEN, { name: "Keywords" });
  const check = await ok<{ uuid: string }>(
    call(server.url, "POST", "/api/v3/checks/", {
      key: project.api_key,
      body: { name: "reads bodies", filter_http_body: true, failure_kw: "ERROR" },
    }),
  );
  const cookie = await signInKey(server.url, TOKEN);
  const csrf = await csrfOf(server.url, cookie, `/projects/${project.id}/checks`);
  const refused = await postForm(server.url, `/checks/${check.uuid}/ping`, { csrf }, { cookie });
  assert.is(refused.status, 400, refused.text.slice(0, 300));
  assert.match(refused.text, "add one under &quot;Success keywords&quot; in the check&#39;s Edit form");
  assert.not.match(refused.text, "through the API");
});

test("a readonly user is refused by their role, not told about keys", async () => {
  const project = await createProject(server, TOKEN, { name: "Watched" });
  const admin = { authorization: `Bearer ${TOKEN}` };
  const user = await ok<{ id: string }>(
    call(server.url, "POST", "/admin/v1/users", {
      headers: admin,
      body: { email: "viewer@corp.example", password: "a viewer's long password" },
    }),
  );
  await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role: "readonly" } }));
  const cookie = (await signInUser(server, "viewer@corp.example", "a viewer's long password")).cookie;
  const integrations = await getPage(server.url, `/projects/${project.id}/integrations`, cookie);
  assert.is(integrations.status, 403);
  assert.match(integrations.text, "your role (readonly): integrations are not shown");
  const form = await getPage(server.url, `/projects/${project.id}/checks/new`, cookie);
  assert.is(form.status, 403);
  assert.match(form.text, "your role (readonly): changes are not allowed");
  for (const text of [integrations.text, form.text]) assert.not.match(text, "read-only key");
  const key = await signInKey(server.url, project.api_key_readonly);
  assert.match(
    (await getPage(server.url, `/projects/${project.id}/integrations`, key)).text,
    "read-only key: integrations are not shown",
    "a read-only key's session is still told so",
  );
});

test("a member's view: an outage they acknowledge names them, the downtime table starts at the check's month, Settings say how a script makes checks without an API key", async () => {
  const project = await createProject(server, TOKEN, { name: "Acknowledged" });
  const admin = { authorization: `Bearer ${TOKEN}` };
  const user = await ok<{ id: string }>(
    call(server.url, "POST", "/admin/v1/users", {
      headers: admin,
      body: { email: "oncall@corp.example", password: "an on-call long password" },
    }),
  );
  await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role: "member" } }));
  const check = await ok<{ uuid: string }>(
    call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "failing" } }),
  );
  assert.is((await call(server.url, "GET", `/ping/${check.uuid}/fail`)).status, 200);
  const cookie = (await signInUser(server, "oncall@corp.example", "an on-call long password")).cookie;
  const csrf = await csrfOf(server.url, cookie, `/projects/${project.id}/checks`);
  const acknowledged = await postForm(server.url, `/checks/${check.uuid}/acknowledge`, { csrf }, { cookie });
  assert.is(acknowledged.status, 303, acknowledged.text.slice(0, 300));
  const page = await getPage(server.url, `/checks/${check.uuid}`, cookie);
  const months = /<table class="list downtime">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page.text)?.[1] ?? "";
  assert.is((months.match(/<tr>/g) ?? []).length, 1, `a check made this month: its month alone in the downtime table\n${months}`);
  assert.match(months, /<td>1<\/td>/, "its one incident");
  // the member sees no API key (a manager's), and is told how a script makes checks with the ping key they see
  const settings = await getPage(server.url, `/projects/${project.id}/settings`, cookie);
  assert.not.match(settings.text, project.api_key);
  assert.match(settings.text, project.ping_key);
  assert.match(settings.text, "<code>/ping/&lt;ping key&gt;/&lt;slug&gt;?create=1</code> creates the check on its first ping");
  const made = await call(server.url, "GET", `/ping/${project.ping_key}/scripted?create=1`);
  assert.is(made.status, 201, "as the page says: the check is made by its first ping");
  assert.match(page.text, /outage acknowledged <time[^>]*>[^<]*<\/time> by oncall@corp\.example/);
});

test.run();
