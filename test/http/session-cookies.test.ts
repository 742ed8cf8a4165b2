// The dashboard's session cookie against real hcd processes on loopback: every answer that sets it (each
// way of signing in: admin token, API key, password, password and second factor, SSO through a real
// OpenID Connect provider, invitation; each way of signing out) marks it HttpOnly and SameSite=Strict for
// the whole site, and also Secure when SITE_ROOT is an https:// address (hcd behind a TLS proxy, still
// plain HTTP here), as the SSO state cookie is; and no sign-in keeps a session id the client sent before
// it (no session fixation): a new id each time, the id sent opening what it opened before and nothing more.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { generateSync } from "otplib"; // only to type a right code when turning the second factor on
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { formsAndLinks } from "./dashboard-crawl.ts";
import type { OidcProviderRig } from "../dashboard/oidc-provider-rig.ts";
import { startOidcProvider, startSignIn, throughProvider } from "../dashboard/oidc-provider-rig.ts";

const TOKEN = "session-cookies-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "correct horse battery";
const COOKIE = "hcd_session";
const CLIENT_SECRET = "session-cookies-client-secret-0123456789";

/**
 * One hcd process with its OpenID Connect provider, where it is reached from (`site`: SITE_ROOT), a
 * project, users with a password, one with the second factor on and one signing in with SSO.
 */
type Site = { server: RealServer; site: string; project: ProjectJson; recoveryCodes: string[]; invites: number };
const dirs = [tempDir(), tempDir()];
const providers: OidcProviderRig[] = [];
let plain: Site;
let https: Site;

test.before(async () => {
  for (const [i, siteRoot] of [
    [0, null],
    [1, "https://hcd.example.org"],
  ] as const) {
    const provider = await startOidcProvider({ sso: { email: "sso@example.org", email_verified: true } });
    providers.push(provider);
    const oidc = { OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: "hcd", OIDC_CLIENT_SECRET: CLIENT_SECRET };
    const server = await startServer({
      dataDir: dirs[i].path,
      env: { ADMIN_TOKEN: TOKEN, ...oidc, ...(siteRoot === null ? {} : { SITE_ROOT: siteRoot }) },
    });
    const site = siteRoot ?? `http://localhost:${server.port}`; // SITE_ROOT's default
    provider.configure(site, "hcd", CLIENT_SECRET);
    if (i === 0) plain = await prepare(server, site);
    else https = await prepare(server, site);
  }
});
test.after(async () => {
  for (const site of [plain, https]) if (site) assert.is(await stopServer(site.server), 0, site.server.output());
  for (const provider of providers) await provider.close();
  for (const dir of dirs) dir.remove();
});

type Answer = { status: number; text: string; location: string; setCookies: string[] };
async function post(server: RealServer, path: string, fields: [string, string][], cookie = ""): Promise<Answer> {
  const response = await fetch(server.url + path, {
    method: "POST",
    body: new URLSearchParams(fields),
    redirect: "manual",
    headers: { cookie },
  });
  return {
    status: response.status,
    text: await response.text(),
    location: response.headers.get("location") ?? "",
    setCookies: response.headers.getSetCookie(),
  };
}
async function get(server: RealServer, path: string, cookie: string): Promise<Answer> {
  const response = await fetch(server.url + path, { redirect: "manual", headers: { cookie } });
  return {
    status: response.status,
    text: await response.text(),
    location: response.headers.get("location") ?? "",
    setCookies: response.headers.getSetCookie(),
  };
}
/** The fields of the first form posting to `action` on a page (htmlparser2, through the crawl's parser). */
function formFields(html: string, action: string): [string, string][] {
  const form = formsAndLinks(html, "http://127.0.0.1/").forms.find((f) => new URL(f.action).pathname === action);
  assert.ok(form, `a form posting to ${action}`);
  return [...form.fields];
}

async function prepare(server: RealServer, site: string): Promise<Site> {
  const project = await createProject(server, TOKEN, { name: "Ops" });
  for (const email of ["ann@example.org", "tf@example.org", "mallory@example.org", "sso@example.org"]) {
    const user = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }),
    );
    await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role: "owner" } }));
  }
  const cookie = cookieOf(
    await post(server, "/signin/password", [
      ["email", "tf@example.org"],
      ["password", PASSWORD],
    ]),
  );
  const fields = formFields((await get(server, "/account", cookie)).text, "/account/second-factor/on");
  const secret = fields.find(([name]) => name === "secret")?.[1] ?? "";
  const on = await post(
    server,
    "/account/second-factor/on",
    [...fields.filter(([name]) => name !== "code" && name !== "password"), ["code", generateSync({ secret })], ["password", PASSWORD]],
    cookie,
  );
  assert.is(on.status, 200, on.text);
  const recoveryCodes = [...on.text.matchAll(/<li><code>([0-9a-f-]{19})<\/code><\/li>/g)].map((m) => m[1]);
  assert.is(recoveryCodes.length, 10, on.text);
  return { server, site, project, recoveryCodes, invites: 0 };
}

/** The `name=value` of the session cookie an answer set (it must set exactly one). */
function cookieOf(answer: Answer): string {
  const set = answer.setCookies.filter((c) => c.startsWith(`${COOKIE}=`));
  assert.is(set.length, 1, `one session cookie set: ${answer.status} ${answer.setCookies.join(" | ")} ${answer.text.slice(0, 300)}`);
  return set[0].split(";")[0];
}
/** A Set-Cookie header's attributes, names lower-cased (a flag's value is ""). */
function attributesOf(setCookie: string): Map<string, string> {
  return new Map(
    setCookie
      .split(";")
      .slice(1)
      .map((part) => {
        const eq = part.indexOf("=");
        return eq === -1 ? [part.trim().toLowerCase(), ""] : [part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim()];
      }),
  );
}

/** Each way of signing in, given the Cookie header the client sends with it: the answer that sets the session. */
const SIGN_INS: Record<string, (site: Site, cookie: string) => Promise<Answer>> = {
  "admin token": (site, cookie) => post(site.server, "/signin", [["key", TOKEN]], cookie),
  "API key": (site, cookie) => post(site.server, "/signin", [["key", site.project.api_key]], cookie),
  password: (site, cookie) =>
    post(
      site.server,
      "/signin/password",
      [
        ["email", "ann@example.org"],
        ["password", PASSWORD],
      ],
      cookie,
    ),
  "password and second factor": async (site, cookie) => {
    const first = await post(
      site.server,
      "/signin/password",
      [
        ["email", "tf@example.org"],
        ["password", PASSWORD],
      ],
      cookie,
    );
    assert.is(first.status, 200, first.text);
    assert.equal(
      first.setCookies.filter((c) => c.startsWith(`${COOKIE}=`)),
      [],
      "no session before the second factor",
    );
    const code = site.recoveryCodes.shift() ?? "";
    return post(
      site.server,
      "/signin/code",
      [...formFields(first.text, "/signin/code").filter(([name]) => name !== "code"), ["code", code]],
      cookie,
    );
  },
  SSO: async (site, cookie) => {
    const started = await startSignIn(site.server.url);
    const back = await throughProvider(started.providerUrl, "sso"); // an address at SITE_ROOT, which is this process
    assert.is(back.origin, new URL(site.site).origin);
    const response = await fetch(site.server.url + back.pathname + back.search, {
      redirect: "manual",
      headers: { cookie: [started.stateCookie, cookie].filter((c) => c !== "").join("; ") },
    });
    return { status: response.status, text: await response.text(), location: "", setCookies: response.headers.getSetCookie() };
  },
  invitation: async (site, cookie) => {
    const email = `invited-${site.invites++}@example.org`;
    const made = await ok<{ invite_url: string }>(call(site.server.url, "POST", "/admin/v1/users", { headers: admin, body: { email } }));
    return post(site.server, new URL(made.invite_url).pathname, [["password", PASSWORD]], cookie);
  },
};
/** What a session cookie opens: a user's account, the admin token's projects page, an API key's project, or nothing. */
async function whoIs(site: Site, cookie: string): Promise<string> {
  const account = await get(site.server, "/account", cookie);
  if (account.status === 200) return `user ${/Signed in as <strong>([^<]+)<\/strong>/.exec(account.text)?.[1] ?? "?"}`;
  const home = await get(site.server, "/", cookie);
  if (home.status === 303 && home.location === `/projects/${site.project.id}/checks`) return "API key";
  const forms = formsAndLinks(home.text, site.server.url).forms.map((form) => new URL(form.action).pathname);
  if (home.status === 200 && forms.includes("/projects")) return "admin token";
  if (home.status === 200 && forms.includes("/signin") && !forms.includes("/signout")) return "nobody";
  return `unknown: ${home.status} ${home.location}`;
}
const WHO: Record<string, string> = {
  "admin token": "admin token",
  "API key": "API key",
  password: "user ann@example.org",
  "password and second factor": "user tf@example.org",
  SSO: "user sso@example.org",
};
/** The status of a sign-in's answer: a redirect home, but a page after SSO (see http/dashboard/oidc-routes.ts). */
const signedInStatus = (way: string) => (way === "SSO" ? 200 : 303);

/** Every Set-Cookie of the session cookie a site answers with: each sign-in, and each sign-out (that clears it). */
async function everySessionCookie(site: Site): Promise<[string, string][]> {
  const found: [string, string][] = [];
  const cookies: Record<string, string> = {};
  for (const [way, signIn] of Object.entries(SIGN_INS)) {
    const answer = await signIn(site, "");
    assert.is(answer.status, signedInStatus(way), `${way}: ${answer.text.slice(0, 300)}`);
    cookies[way] = cookieOf(answer);
    found.push([`sign-in: ${way}`, answer.setCookies.find((c) => c.startsWith(`${COOKIE}=`)) ?? ""]);
  }
  for (const way of ["admin token", "API key"]) {
    // no account behind these sessions: /account sends them home, not to a sign-in that sends them back (a loop)
    const account = await get(site.server, "/account", cookies[way]);
    assert.equal([account.status, account.location], [303, "/"], `${way}: /account`);
  }
  const home = await get(site.server, "/", cookies["admin token"]);
  const signout = await post(site.server, "/signout", formFields(home.text, "/signout"), cookies["admin token"]);
  assert.is(signout.status, 303, signout.text);
  found.push(["sign-out", signout.setCookies.find((c) => c.startsWith(`${COOKIE}=`)) ?? ""]);
  const account = await get(site.server, "/account", cookies.password);
  const own = await post(site.server, "/account/sessions/signout", formFields(account.text, "/account/sessions/signout"), cookies.password);
  assert.is(own.status, 303, own.text);
  found.push(["account page: sign out this session", own.setCookies.find((c) => c.startsWith(`${COOKIE}=`)) ?? ""]);
  // cleared in the browser and ended on the server: a copy of the old cookie opens nothing
  assert.is(await whoIs(site, cookies["admin token"]), "nobody", "signed out");
  assert.is(await whoIs(site, cookies.password), "nobody", "signed out from the account page");
  return found;
}

/** Checks the attributes every session cookie must have; returns the problems found. */
function problemsOf(label: string, setCookie: string, secure: boolean): string[] {
  const attributes = attributesOf(setCookie);
  const clearing = label.includes("sign-out") || label.includes("sign out");
  const problems = [];
  if (!setCookie.startsWith(`${COOKIE}=`)) problems.push("not the session cookie");
  if (!attributes.has("httponly")) problems.push("not HttpOnly");
  if (attributes.get("samesite")?.toLowerCase() !== "strict") problems.push(`SameSite=${attributes.get("samesite")}`);
  if (attributes.get("path") !== "/") problems.push(`Path=${attributes.get("path")}`);
  if (attributes.has("secure") !== secure) problems.push(secure ? "not Secure" : "Secure on plain http");
  if (attributes.has("domain")) problems.push("a Domain, so sent to other hosts too");
  if (clearing && (attributes.get("max-age") !== "0" || setCookie.split(";")[0] !== `${COOKIE}=`)) problems.push("not cleared");
  if (!clearing && attributes.get("max-age") !== String(12 * 3600))
    problems.push(`Max-Age=${attributes.get("max-age")}, not the 12 h idle lifetime`);
  return problems.map((problem) => `${label}: ${problem} (${setCookie})`);
}

/** The SSO state cookie (hcd_oidc): HttpOnly, SameSite=Lax (it must come back with the provider's redirect), only for /signin/oidc. */
async function stateCookieProblems(site: Site, secure: boolean): Promise<string[]> {
  const response = await fetch(`${site.server.url}/signin/oidc`, { method: "POST", redirect: "manual" });
  await response.text();
  const set = response.headers.getSetCookie().filter((c) => c.startsWith("hcd_oidc="));
  if (set.length !== 1) return [`POST /signin/oidc: ${response.status}, state cookies ${JSON.stringify(set)}`];
  const attributes = attributesOf(set[0]);
  const problems = [];
  if (!attributes.has("httponly")) problems.push("not HttpOnly");
  if (attributes.get("samesite")?.toLowerCase() !== "lax") problems.push(`SameSite=${attributes.get("samesite")}`);
  if (attributes.get("path") !== "/signin/oidc") problems.push(`Path=${attributes.get("path")}`);
  if (attributes.has("secure") !== secure) problems.push(secure ? "not Secure" : "Secure on plain http");
  return problems.map((problem) => `SSO state cookie: ${problem} (${set[0]})`);
}

test("on plain http every session cookie set is HttpOnly, SameSite=Strict, for the whole site and not Secure", async () => {
  const cookies = await everySessionCookie(plain);
  assert.is(cookies.length, 8, "six sign-ins and two sign-outs");
  assert.equal(
    cookies.flatMap(([label, setCookie]) => problemsOf(label, setCookie, false)),
    [],
  );
  assert.equal(await stateCookieProblems(plain, false), []);
});

test("with an https:// SITE_ROOT every session cookie set is also Secure", async () => {
  const cookies = await everySessionCookie(https);
  assert.is(cookies.length, 8, "six sign-ins and two sign-outs");
  assert.equal(
    cookies.flatMap(([label, setCookie]) => problemsOf(label, setCookie, true)),
    [],
  );
  assert.equal(await stateCookieProblems(https, true), []);
});

test("a session id sent before signing in is never the one after it, whichever way, and opens no more than before", async () => {
  const site = plain;
  // the ids planted: one of a session of the planter's own, and one made up
  const mallory = cookieOf(
    await post(site.server, "/signin/password", [
      ["email", "mallory@example.org"],
      ["password", PASSWORD],
    ]),
  );
  assert.is(await whoIs(site, mallory), "user mallory@example.org");
  const madeUp = `${COOKIE}=${"f".repeat(43)}`;
  assert.is(await whoIs(site, madeUp), "nobody");
  for (const [way, signIn] of Object.entries(SIGN_INS)) {
    for (const [planted, was] of [
      [mallory, "user mallory@example.org"],
      [madeUp, "nobody"],
    ]) {
      const answer = await signIn(site, planted);
      assert.is(answer.status, signedInStatus(way), `${way}: ${answer.text.slice(0, 300)}`);
      const after = cookieOf(answer);
      assert.is.not(after, planted, `${way}: a new session id, not the one sent`);
      assert.ok(after.length >= `${COOKIE}=`.length + 43, `${way}: a fresh random id (${after})`);
      if (way in WHO) assert.is(await whoIs(site, after), WHO[way], `${way}: the new session is the one signed in`);
      else assert.match(await whoIs(site, after), /^user invited-\d+@example\.org$/, way);
      assert.is(await whoIs(site, planted), was, `${way}: the id sent still opens only what it did`);
    }
  }
});

test.run();
