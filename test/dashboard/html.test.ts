// The dashboard's template escaping, session store and cookie parsing, without a browser.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { escapeHtml, html } from "../../http/dashboard/html.ts";
import { mockEvent } from "h3";
import { sessionIdOf } from "../../http/dashboard/responses.ts";
import { csrfMatches, SESSION_IDLE_MS, SessionStore } from "../../http/dashboard/sessions.ts";

test("every interpolation is escaped; fragments built by html are kept; lists are joined", () => {
  const name = `<img src=x onerror="alert('x')">&`;
  assert.is(escapeHtml(name), "&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;");
  const inner = html`<b>${name}</b>`;
  assert.is(
    html`<p title="${name}">${inner}${[name, 1]}${null}${false}</p>`.text,
    `<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">` +
      `<b>&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;</b>` +
      `&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;1</p>`,
  );
});

test("a session lives while used within its idle time, and ends when closed or idle too long", () => {
  const store = new SessionStore();
  const session = store.open({ kind: "admin", tokenHash: "h" }, 1_000);
  assert.is(store.find(session.id, 1_000 + SESSION_IDLE_MS - 1)?.id, session.id, "renewed by this use");
  const usedAt = 1_000 + SESSION_IDLE_MS - 1;
  assert.is(store.find(session.id, usedAt + SESSION_IDLE_MS - 1)?.id, session.id);
  assert.is(store.find(session.id, usedAt + 2 * SESSION_IDLE_MS), null, "idle too long");
  const other = store.open({ kind: "key", apiKey: "k" }, 0);
  store.close(other.id);
  assert.is(store.find(other.id, 1), null);
  assert.is(store.find("made-up", 1), null);
  assert.is(store.find(null, 1), null);
});

test("a session another node opened is held once adopted, unless it has expired", () => {
  const opened = new SessionStore().open({ kind: "key", apiKey: "k" }, 1_000);
  const store = new SessionStore();
  assert.not.ok(store.has(opened.id));
  store.adopt(opened, 2_000);
  assert.ok(store.has(opened.id));
  assert.equal(store.find(opened.id, 3_000)?.principal, { kind: "key", apiKey: "k" });
  const expired = new SessionStore().open({ kind: "admin", tokenHash: "h" }, 0);
  store.adopt(expired, SESSION_IDLE_MS);
  assert.not.ok(store.has(expired.id), "its idle time is over");
});

test("the CSRF token must match exactly", () => {
  const session = new SessionStore().open({ kind: "admin", tokenHash: "h" }, 0);
  assert.ok(csrfMatches(session, session.csrf));
  assert.not.ok(csrfMatches(session, null));
  assert.not.ok(csrfMatches(session, ""));
  assert.not.ok(csrfMatches(session, session.csrf.slice(1)));
  assert.not.ok(csrfMatches(session, session.csrf + "x"));
  assert.ok(session.csrf.length >= 40 && session.id !== session.csrf);
});

test("sessionIdOf finds the session cookie among several, and no other", () => {
  const withCookie = (cookie: string | null) => mockEvent("http://hcd.test/", cookie === null ? {} : { headers: { cookie } });
  assert.is(sessionIdOf(withCookie("a=1; hcd_session=abc; b=2")), "abc");
  assert.is(sessionIdOf(withCookie("xhcd_session=abc")), null);
  assert.is(sessionIdOf(withCookie(null)), null);
});

test.run();
