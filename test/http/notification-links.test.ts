// Every link in every kind's message opens a page that exists: each kind's down, up and reminder messages
// for a real check are rendered as the deliverer renders them, every URL of this site is taken out of
// them, and each is opened on the running server signed in (admin token, a member's account, the
// read-only key: each lands on the check's page) and signed out (the sign-in page, then the check).
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { OutboxEntry } from "../../engine/changes.ts";
import { entryCheckOf, noticeChannelOf } from "../../engine/changes.ts";
import type { Channel, ChannelKind, Check } from "../../engine/model.ts";
import { CHANNEL_KINDS, HOUR } from "../../engine/model.ts";
import { channelInputOf } from "../../http/admin-input.ts";
import type { Delivery } from "../../notify/delivery.ts";
import { render } from "../../notify/render.ts";
import { serviceKindsOf } from "../../notify/kinds/service.ts";
import { settingsAt } from "../notify/service-kinds-fixture.ts";
import { ADMIN_TOKEN, SITE, withServedApi } from "./harness.ts";

const PROVIDER = "http://provider.test"; // the providers' endpoints: never followed, only this site's links are
const SETTINGS = { ...settingsAt(PROVIDER), signalCliSocket: "/run/signal-cli/socket" };

/** A value of each kind as the admin API takes it; a kind missing here fails the test (its links would go unchecked). */
const VALUES: Record<ChannelKind, unknown> = {
  email: "ops@example.org",
  webhook: { url_down: `${PROVIDER}/hook?name=$NAME`, body_down: "$NAME is $STATUS", method_down: "POST" },
  slack: `${PROVIDER}/slack`,
  discord: `${PROVIDER}/discord`,
  ntfy: { url: PROVIDER, topic: "ops" },
  telegram: { chat_id: "-100123" },
  msteamsw: `${PROVIDER}/teams`,
  pd: { service_key: "pd-key" },
  po: { user_key: "po-user" },
  gotify: { url: PROVIDER, token: "t" },
  matrix: { room_id: "!room:example.org" },
  googlechat: { url: `${PROVIDER}/chat` },
  opsgenie: { key: "og-key" },
  mattermost: { url: `${PROVIDER}/mm` },
  rocketchat: `${PROVIDER}/rc`,
  zulip: { bot_email: "bot@org.example", api_key: "k", site: PROVIDER, mtype: "stream", to: "ops" },
  pushbullet: { token: "pb" },
  victorops: `${PROVIDER}/vo`,
  pagertree: `${PROVIDER}/pt`,
  spike: { url: `${PROVIDER}/spike` },
  shell: { cmd_down: `/bin/sh -c 'true "$NAME"'`, cmd_up: "/bin/true" },
  github: { repo: "acme/ops", token: "gh" },
  trello: { list_id: "0123456789abcdef01234567", token: "tr" },
  sms: { phone: "+15551234567" },
  whatsapp: { phone: "+15551234567" },
  call: { phone: "+15551234567" },
  apprise: { url: "json://provider.test/x" },
  signal: { value: "+15551234567", up: true, down: true },
  alertmanager: { url: PROVIDER, labels: "team=ops" },
  group: null, // a group sends its members' messages: every other kind here
};

/**
 * Kinds whose messages carry no link to this site, as the reference's (a text message, a call, a command);
 * a webhook sends what its templates say ($JSON is the check's API representation, whose URLs the API serves).
 */
const WITHOUT_LINKS = new Set<ChannelKind>(["webhook", "victorops", "spike", "sms", "whatsapp", "call", "shell", "signal", "group"]);

/** Every string a delivery sends: URLs, header values, bodies (JSON and form bodies decoded too), commands. */
function textsOf(delivery: Delivery): string[] {
  if (delivery.kind === "email") return [delivery.text, delivery.html];
  if (delivery.kind === "command") return [...delivery.argv, ...Object.values(delivery.env)];
  if (delivery.kind === "jsonrpc") return [delivery.line, JSON.stringify(JSON.parse(delivery.line))];
  const requests = delivery.kind === "sequence" ? delivery.requests : [delivery];
  return requests.flatMap((r) => {
    const body = r.body ?? "";
    const decoded: string[] = [];
    try {
      decoded.push(JSON.stringify(JSON.parse(body)));
    } catch {
      decoded.push(...new URLSearchParams(body).values());
    }
    return [r.url, ...Object.values(r.headers), body, ...decoded];
  });
}

/** This site's links in `texts`, each once. */
function siteLinks(texts: readonly string[]): string[] {
  const found = texts.flatMap((text) => text.replaceAll("&amp;", "&").match(/https?:\/\/[^\s"'<>)\]\\]+/g) ?? []);
  return [...new Set(found.filter((url) => url.startsWith(`${SITE}/`)))];
}

function entriesOf(channel: Channel, check: Check): OutboxEntry[] {
  const base = {
    projectId: check.projectId,
    check: entryCheckOf(channel, check),
    channel: noticeChannelOf(channel),
    lastPing: null,
    lastPingBody: null,
    projectName: "Ops",
    downSinceAt: check.createdAt,
    attempts: 0,
    nextAttemptAt: check.createdAt,
    lastError: null,
  };
  const flip = { checkUuid: check.uuid, n: 1, at: check.createdAt + HOUR, reason: "timeout" as const, notify: true };
  return [
    { ...base, id: "down", flip: { ...flip, from: "up", to: "down" } },
    { ...base, id: "up", flip: { ...flip, n: 2, from: "down", to: "up", reason: "" } },
    { ...base, id: "reminder", flip: { ...flip, from: "down", to: "down", reason: "" }, reminder: 1 },
  ];
}

type Browser = {
  get(url: string): Promise<{ status: number; location: string | null; text: string; type: string }>;
  cookie: string | null;
};

function browser(cookie: string | null): Browser {
  return {
    cookie,
    async get(url) {
      const res = await fetch(url, { redirect: "manual", headers: cookie === null ? {} : { cookie } });
      return {
        status: res.status,
        location: res.headers.get("location"),
        text: await res.text(),
        type: res.headers.get("content-type") ?? "",
      };
    },
  };
}

/** Follows redirects from `url` (at most 5) and returns the final answer and the path it was at. */
async function open(base: string, who: Browser, url: string) {
  let at = url;
  for (let hops = 0; hops < 5; hops++) {
    const answer = await who.get(at);
    if (answer.status !== 303 && answer.status !== 302) return { ...answer, path: new URL(at).pathname + new URL(at).search };
    at = new URL(answer.location ?? "/", base).toString();
  }
  throw new Error(`too many redirects from ${url}`);
}

async function signIn(base: string, form: Record<string, string>, path = "/signin"): Promise<{ cookie: string; location: string | null }> {
  const res = await fetch(`${base}${path}`, { method: "POST", body: new URLSearchParams(form), redirect: "manual" });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  assert.ok(cookie.includes("="), `signed in through ${path}: ${res.status} ${await res.text()}`);
  return { cookie, location: res.headers.get("location") };
}

test("every link of every kind's message opens the check, signed in or through the sign-in page", async () => {
  await withServedApi(async (api, base) => {
    const created = await api.create({ name: "Nightly backup & sync", tags: "prod db", timeout: 60, grace: 60 });
    const uuid = String(created.ping_url).split("/").pop() ?? "";
    const found = await api.pool.getCheck(api.project.id, { uuid });
    if (!found.ok) throw new Error("check not found");
    const check = found.value;
    const kinds = serviceKindsOf(SETTINGS);
    // a member's account in this project
    assert.is((await api.admin("POST", "/admin/v1/users", { email: "member@example.org", password: "member password 1" })).status, 201);
    const users = (await api.admin("GET", "/admin/v1/users")).json as { users: { id: string; email: string }[] };
    const userId = users.users.find((u) => u.email === "member@example.org")?.id ?? "";
    assert.is((await api.admin("PUT", `/admin/v1/projects/${api.project.id}/members/${userId}`, { role: "member" })).status, 200);
    const signedIn: [string, Browser][] = [
      ["admin token", browser((await signIn(base, { key: ADMIN_TOKEN })).cookie)],
      ["member", browser((await signIn(base, { email: "member@example.org", password: "member password 1" }, "/signin/password")).cookie)],
      ["read-only key", browser((await signIn(base, { key: api.project.apiKeyReadonly })).cookie)],
    ];
    const followed = new Map<ChannelKind, string[]>();
    for (const kind of CHANNEL_KINDS) {
      assert.ok(Object.hasOwn(VALUES, kind), `a value of ${kind} to render its message`);
      if (kind === "group") continue;
      const input = channelInputOf({ kind, name: kind, value: VALUES[kind] }, kinds);
      assert.ok(input.ok, `${kind}: ${JSON.stringify(input)}`);
      if (!input.ok) continue;
      const channel: Channel = { id: `c-${kind}`, projectId: api.project.id, createdAt: check.createdAt, ...input.value };
      const links = siteLinks(
        entriesOf(channel, check).flatMap((entry) => {
          const delivery = render(entry, { siteRoot: SITE, siteName: "hcd", services: SETTINGS });
          return delivery === null ? [] : textsOf(delivery);
        }),
      );
      followed.set(kind, links);
      for (const link of links) {
        const url = link.replace(SITE, base);
        const path = url.slice(base.length);
        if (path.startsWith("/static/")) {
          // an icon: an image anyone may fetch
          const icon = await open(base, browser(null), url);
          assert.equal([icon.status, icon.type], [200, "image/png"], `${kind}: ${link}`);
          continue;
        }
        for (const [who, session] of signedIn) {
          const page = await open(base, session, url);
          assert.is(page.status, 200, `${kind}: ${link} as ${who}: ${page.text.slice(0, 200)}`);
          assert.ok(page.path.startsWith("/checks/"), `${kind}: ${link} as ${who} landed on ${page.path}`);
          assert.match(page.text, "Nightly backup &amp; sync", `${kind}: ${link} as ${who} shows the check`);
        }
        // signed out: the sign-in page, which comes back to the link, which opens the check
        const out = await browser(null).get(url);
        assert.is(out.status, 303, `${kind}: ${link} signed out`);
        const signInPage = await open(base, browser(null), new URL(out.location ?? "/", base).toString());
        const next = /name="next" value="([^"]+)"/.exec(signInPage.text)?.[1]?.replaceAll("&amp;", "&") ?? "";
        assert.is(next, path, `${kind}: ${link}: the sign-in page carries the page to come back to`);
        const { cookie, location } = await signIn(base, { key: ADMIN_TOKEN, next });
        assert.is(location, path, `${kind}: ${link}: signed in, back to the link`);
        const landed = await open(base, browser(cookie), new URL(location ?? "/", base).toString());
        assert.equal([landed.status, landed.path], [200, `/checks/${uuid}`], `${kind}: ${link} after the sign-in`);
      }
    }
    const withoutLinks = [...followed].filter(([, links]) => links.length === 0).map(([kind]) => kind);
    assert.equal(
      withoutLinks.sort(),
      [...WITHOUT_LINKS].filter((kind) => kind !== "group").sort(),
      "the kinds whose messages carry no link",
    );
    // the links seen: the check's link, PagerDuty's details page and the Slack/Discord icon
    const all = new Set(
      [...followed.values()].flat().map((link) => link.replace(/\/cloaked\/[0-9a-f]{40}\//, "/cloaked/KEY/").replace(uuid, "UUID")),
    );
    assert.equal([...all].sort(), [`${SITE}/checks/UUID/details/`, `${SITE}/cloaked/KEY/`, `${SITE}/static/img/logo.png`]);
  });
});

test("a sign-in never goes on to another site: next must be a path of this site", async () => {
  await withServedApi(async (_api, base) => {
    for (const next of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"]) {
      const { location } = await signIn(base, { key: ADMIN_TOKEN, next });
      assert.is(location, "/", next);
    }
  });
});

test.run();
