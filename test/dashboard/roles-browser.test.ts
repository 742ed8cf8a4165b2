// The manager and owner roles in a real browser (Debian's chromium driven by playwright-core) against a real
// hcd process on loopback: what each is shown and may do from the pages, and the forms only a higher role
// may send, forged with the session's own security token, refused with nothing changed (read back through
// the admin API). A manager removes an integration, creates a key anew, makes a status page and gives roles
// below owner; an owner also mutes, renames and deletes the project and gives or takes an owner's role.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { BrowserContext, Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signInWithPassword, whenChromium } from "./browser-harness.ts";

const TOKEN = "roles-browser-admin-token-0123456789";
const PASSWORD = "a long enough password";
const admin = { authorization: `Bearer ${TOKEN}` };

type Member = { id: string; email: string; role: string };

await whenChromium("roles browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" });
  let project: ProjectJson;
  const ids: Record<string, string> = {};
  const contexts: BrowserContext[] = [];
  const url = () => rig().server.url;
  const adminGet = <T>(path: string) => ok<T>(call(url(), "GET", path, { headers: admin }));
  const members = async () =>
    (await adminGet<{ members: Member[] }>(`/admin/v1/projects/${project.id}/members`)).members.map((m) => `${m.email} ${m.role}`).sort();
  const channelNames = async () =>
    (await adminGet<{ channels: { name: string }[] }>(`/admin/v1/projects/${project.id}/channels`)).channels.map((c) => c.name).sort();
  const mutedUntil = async () => (await adminGet<{ muted_until: string | null }>(`/admin/v1/projects/${project.id}`)).muted_until;
  const projectNow = () => adminGet<ProjectJson>(`/admin/v1/projects/${project.id}`);

  test.before(async () => {
    const { server } = rig();
    project = await createProject(server, TOKEN, { name: "Ops" });
    for (const name of ["Hook", "Spare hook"])
      await addChannel(server, TOKEN, project.id, { kind: "webhook", name, value: "http://127.0.0.1:9/hook" });
    await ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "Nightly backup" } }));
    for (const [email, role] of [
      ["mgr@example.org", "manager"],
      ["own@example.org", "owner"],
      ["boss@example.org", "owner"],
      ["dev@example.org", "member"],
    ]) {
      const made = await ok<{ id: string }>(
        call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }),
      );
      await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${made.id}`, { headers: admin, body: { role } }));
      ids[email] = made.id;
    }
  });
  test.after.each(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  const signedIn = async (email: string): Promise<Page> => {
    const context = await newContext(rig().browser);
    contexts.push(context);
    const page = await context.newPage();
    await signInWithPassword(page, url(), email, PASSWORD);
    return page;
  };
  /** Sends a form as this page's session would, with the security token of the page it shows. */
  const forge = async (page: Page, path: string, fields: Record<string, string>) => {
    const csrf = await page.locator("input[name='csrf']").first().inputValue();
    const answer = await page.request.post(url() + path, { form: { csrf, ...fields }, maxRedirects: 0 });
    return { status: answer.status(), text: await answer.text() };
  };
  /** The members table's role cell of `email` once it reads `role`. */
  const roleCell = (page: Page, email: string, role: string) =>
    page.locator("table.members tr", { hasText: email }).locator("td:nth-child(2)", { hasText: new RegExp(`^${role}$`) });
  const refusedAs = (answer: { status: number; text: string }, role: string) => {
    assert.is(answer.status, 403, answer.text);
    assert.match(answer.text, `the role ${role} in this project does not allow`);
  };

  test("a manager is shown and may use integrations, keys, status pages and members below owner", async () => {
    const page = await signedIn("mgr@example.org");
    await page.goto(`${url()}/projects/${project.id}/integrations`);
    await page.getByRole("link", { name: "Remove Spare hook" }).click();
    await page.getByRole("button", { name: "Remove for good" }).click();
    await page.getByText("Integration removed.").waitFor();
    assert.equal(await channelNames(), ["Hook"]);

    await page.goto(`${url()}/projects/${project.id}/settings`);
    await page.getByText("Read-write API key").click();
    await page.getByText(project.api_key).waitFor();
    assert.is(await page.getByRole("button", { name: "Save mute" }).count(), 0, "no mute for a manager");
    assert.is(await page.getByRole("link", { name: /delete the project/ }).count(), 0, "no renaming or deleting the project for a manager");
    await page.getByRole("link", { name: "Create or revoke keys" }).click();
    assert.is(await page.getByRole("button", { name: "Rename project" }).count(), 0);
    assert.is(await page.getByRole("link", { name: /Delete this project/ }).count(), 0);
    const readonlyBefore = (await projectNow()).api_key_readonly;
    await page.getByRole("button", { name: "Create a new read-only API key" }).click();
    await page.getByText("A new key was created").waitFor();
    const readonlyAfter = (await projectNow()).api_key_readonly;
    assert.ok(readonlyAfter !== "" && readonlyAfter !== readonlyBefore, "a new read-only key");

    await page.goto(`${url()}/projects/${project.id}/status-pages`);
    await page.getByLabel("Title").fill("Managed page");
    await page.getByLabel(/Address/).fill("managed");
    await page.getByRole("checkbox", { name: "Nightly backup" }).check();
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.getByRole("link", { name: "/status/managed" }).waitFor();
    assert.is((await fetch(`${url()}/status/managed.json`)).status, 200);

    await page.goto(`${url()}/projects/${project.id}/members`);
    assert.equal(
      await page.locator("#member-role option").allTextContents(),
      ["readonly", "member", "manager"],
      "no owner among the roles a manager gives",
    );
    for (const owner of ["own@example.org", "boss@example.org"]) {
      assert.is(await page.getByRole("button", { name: `Save the role of ${owner}` }).count(), 0, owner);
      assert.is(await page.getByRole("button", { name: `Remove ${owner}` }).count(), 0, owner);
    }
    await page.getByLabel("Role of dev@example.org", { exact: true }).selectOption("readonly");
    await page.getByRole("button", { name: "Save the role of dev@example.org" }).click();
    await roleCell(page, "dev@example.org", "readonly").waitFor();
    assert.ok((await members()).includes("dev@example.org readonly"));
  });

  test("a manager's forged forms for an owner's role, the mute and the project itself are refused and change nothing", async () => {
    const page = await signedIn("mgr@example.org");
    await page.goto(`${url()}/projects/${project.id}/members`);
    const before = await members();
    refusedAs(await forge(page, `/projects/${project.id}/members`, { email: "own@example.org", role: "member" }), "manager");
    refusedAs(await forge(page, `/projects/${project.id}/members/${ids["own@example.org"]}/remove`, {}), "manager");
    refusedAs(await forge(page, `/projects/${project.id}/members`, { email: "dev@example.org", role: "owner" }), "manager");
    refusedAs(await forge(page, `/projects/${project.id}/members`, { email: "someone-new@example.org", role: "owner" }), "manager");
    assert.equal(await members(), before, "no role given, changed or taken");
    assert.not.ok(JSON.stringify(await adminGet("/admin/v1/users")).includes("someone-new@example.org"), "no invitation made");

    refusedAs(await forge(page, `/projects/${project.id}/mute`, { until: "2099-01-01T00:00:00Z" }), "manager");
    assert.is(await mutedUntil(), null);
    refusedAs(await forge(page, `/projects/${project.id}/delete`, {}), "manager");
    refusedAs(await forge(page, `/projects/${project.id}/rename`, { name: "Taken over" }), "manager");
    assert.equal(
      (await adminGet<{ projects: { id: string; name: string }[] }>("/admin/v1/projects")).projects.map((p) => [p.id, p.name]),
      [[project.id, "Ops"]],
    );
  });

  test("an owner is shown and may use the mute, an owner's role, and the project's name, keys and deletion", async () => {
    const page = await signedIn("own@example.org");
    await page.goto(`${url()}/projects/${project.id}/settings`);
    await page.getByLabel(/Mute the project's notifications until/).fill("2099-01-01T00:00:00Z");
    await page.getByRole("button", { name: "Save mute" }).click();
    await page.getByText("Maintenance mute saved.").waitFor();
    assert.is(await mutedUntil(), "2099-01-01T00:00:00+00:00");

    await page.goto(`${url()}/projects/${project.id}/members`);
    assert.equal(await page.locator("#member-role option").allTextContents(), ["readonly", "member", "manager", "owner"]);
    await page.getByLabel("Role of boss@example.org", { exact: true }).selectOption("manager");
    await page.getByRole("button", { name: "Save the role of boss@example.org" }).click();
    await roleCell(page, "boss@example.org", "manager").waitFor();
    await page.getByRole("button", { name: "Remove mgr@example.org" }).click();
    await page.locator("table.members tr", { hasText: "mgr@example.org" }).waitFor({ state: "detached" });
    assert.equal(await members(), ["boss@example.org manager", "dev@example.org readonly", "own@example.org owner"]);

    await page.goto(`${url()}/projects/${project.id}/settings`);
    await page.getByRole("link", { name: "Rename, create or revoke keys, delete the project" }).click();
    await page.getByLabel("Project name").fill("Ops team");
    await page.getByRole("button", { name: "Rename project" }).click();
    await page.getByText("Project renamed.").waitFor();
    assert.is((await projectNow()).name, "Ops team");
    const keyBefore = (await projectNow()).api_key;
    await page.getByRole("button", { name: "Create a new read-write API key" }).click();
    await page.getByText("A new key was created").waitFor();
    assert.not.equal((await projectNow()).api_key, keyBefore);
    await page.getByRole("link", { name: /Delete this project/ }).click();
    await page.getByRole("button", { name: "Delete the project for good" }).click();
    await page.waitForURL(`${url()}/`);
    assert.equal((await adminGet<{ projects: unknown[] }>("/admin/v1/projects")).projects, []);
  });

  test.run();
});
