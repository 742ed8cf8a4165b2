// The account page's second-factor set-up on a real server: a QR code as inline SVG (no image request, no
// script, no inline style the page's Content-Security-Policy would block) that is the qrcode library's own
// rendering of the otpauth:// URI computed here from the secret the page shows as text, so a QR code of any
// other URI (another secret, label or issuer) fails.
import { test } from "uvu";
import * as assert from "uvu/assert";
import QRCode from "qrcode";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "./real-server.ts";
import { call, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInUser } from "./form-client.ts";
import { stepNow, totp } from "../totp-codes.ts";

const TOKEN = "totp-qr-admin-token-0123456789abcdef";
const EMAIL = "qr.user+ops@corp.example",
  PASSWORD = "a long password for the qr";

let server: RealServer;
const dir = tempDir();
test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  await ok(
    call(server.url, "POST", "/admin/v1/users", {
      headers: { authorization: `Bearer ${TOKEN}` },
      body: { email: EMAIL, password: PASSWORD },
    }),
  );
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

test("the set-up shows the otpauth URI of the shown secret as an inline SVG QR code, within the page's CSP", async () => {
  const cookie = (await signInUser(server, EMAIL, PASSWORD)).cookie;
  const response = await fetch(new URL("/account", server.url), { headers: { cookie } });
  const page = await response.text();
  const secret = /<code class="totp-secret">([A-Z2-7]+)<\/code>/.exec(page)?.[1] ?? "";
  assert.ok(secret.length >= 16, page.slice(0, 500));
  // the Key URI Format: otpauth://totp/<issuer>:<account>?secret=...&issuer=..., the account's @ and + escaped
  const uri = `otpauth://totp/hcd:${encodeURIComponent(EMAIL)}?secret=${secret}&issuer=hcd`;
  assert.match(page, `href="${uri.replaceAll("&", "&amp;")}"`, "the link beside the QR code (its & escaped)");
  const svg = /<figure class="totp-qr"[^>]*>(<svg[\s\S]*?<\/svg>\s*)<\/figure>/.exec(page)?.[1] ?? "";
  const drawn = /<path stroke="#000000" d="([^"]+)"/.exec(svg)?.[1] ?? "";
  assert.ok(drawn.length > 1000, `a QR code's modules, not an empty path: ${svg.slice(0, 300)}`);
  assert.is(
    svg,
    await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2, width: 200 }),
    "the library's QR code of that very URI",
  );
  // nothing the CSP blocks and nothing fetched: no <img>, no script, no style attribute, no external reference
  assert.not.match(svg, /<img|<script|style=|href=|url\(/);
  const csp = response.headers.get("content-security-policy") ?? "";
  assert.match(csp, "default-src 'self'");
  assert.not.match(csp, "unsafe-inline");
  // the same page again shows a new secret, with its own QR code
  const again = await getPage(server.url, "/account", cookie);
  const secondSecret = /<code class="totp-secret">([A-Z2-7]+)<\/code>/.exec(again.text)?.[1] ?? "";
  assert.is.not(secondSecret, secret);
  assert.not.match(again.text, svg);
});

test('a wrong code is refused in plain words; the code typed as "123 456", as apps show it, turns it on', async () => {
  const cookie = (await signInUser(server, EMAIL, PASSWORD)).cookie;
  const page = (await getPage(server.url, "/account", cookie)).text;
  const secret = /<code class="totp-secret">([A-Z2-7]+)<\/code>/.exec(page)?.[1] ?? "";
  const csrf = await csrfOf(server.url, cookie);
  const step = stepNow();
  const wrong = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf, secret, code: totp(secret, step + 10), password: PASSWORD },
    { cookie },
  );
  assert.is(wrong.status, 400);
  assert.match(wrong.text, "The code is not the app&#39;s current one: check the phone&#39;s clock and try the next code.");
  assert.not.match(wrong.text, "json validation error");
  const code = totp(secret, step);
  const on = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf, secret, code: `${code.slice(0, 3)} ${code.slice(3)}`, password: PASSWORD },
    { cookie },
  );
  assert.is(on.status, 200, on.text.slice(0, 300));
  assert.match(on.text, "The second factor is on.");
});

test.run();
