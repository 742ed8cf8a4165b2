// A real OpenID Connect provider for the SSO tests (oidc-provider from npm, its development login and
// consent pages) on loopback, hcd started against it for a test file, and a walk through those pages with
// plain fetch that stops at the provider's redirect back to hcd's callback: the tests then open that URL
// themselves, as it came, changed or twice.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import type { Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";

/** A person at the provider, by the login typed on its page: their email claims, and where the provider gives them. */
export type Person = { readonly email: string; readonly email_verified: boolean; readonly emailIn?: "id_token" | "userinfo" };

export type OidcProviderRig = {
  readonly issuer: string;
  /** Configures the provider for hcd at `site` (its callback URL is known once hcd listens). */
  configure(site: string, clientId: string, clientSecret: string): void;
  close(): Promise<void>;
};

/** Starts the provider's HTTP server; it answers 503 until configured. */
export async function startOidcProvider(people: Record<string, Person>): Promise<OidcProviderRig> {
  let provider: Provider | undefined;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (provider === undefined) {
      res.statusCode = 503;
      res.end();
      return;
    }
    void provider.callback()(req, res); // Koa answers its own errors
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    configure(site, clientId, clientSecret) {
      provider = new Provider(issuer, {
        clients: [
          {
            client_id: clientId,
            client_secret: clientSecret,
            redirect_uris: [`${site}/signin/oidc/callback`],
            response_types: ["code"],
            grant_types: ["authorization_code"],
          },
        ],
        pkce: { required: () => true },
        conformIdTokenClaims: false, // the email claims in the ID token, unless a person says userinfo only
        claims: { openid: ["sub"], email: ["email", "email_verified"] },
        findAccount: (_ctx, id) => ({
          accountId: id,
          claims: (use: string) => {
            const person = people[id];
            if (person === undefined) return { sub: id };
            const { emailIn, ...claims } = person;
            return emailIn === "userinfo" && use === "id_token" ? { sub: id } : { sub: id, ...claims };
          },
        }),
        features: { devInteractions: { enabled: true } },
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** hcd with "Sign in with SSO" against the rig's provider: `site` is hcd as its SITE_ROOT names it (the callback URLs' origin, its cookies' host). */
export type SsoRig = { readonly provider: OidcProviderRig; readonly server: RealServer; readonly site: string };

/**
 * Starts the provider with `people` and hcd with the three OIDC_* settings in test.before, with a user (and
 * a password) for each of `users`; test.after stops both and fails on errors in hcd's output or the client
 * secret in it.
 */
export function ssoRig(
  people: Record<string, Person>,
  opts: { token: string; clientSecret: string; users: readonly string[] },
): () => SsoRig {
  const dir = tempDir();
  let provider: OidcProviderRig | undefined;
  let rig: SsoRig | undefined;
  test.before(async () => {
    provider = await startOidcProvider(people); // its port first (hcd needs OIDC_ISSUER), its client once hcd's callback URL is known
    const server = await startServer({
      dataDir: dir.path,
      env: { ADMIN_TOKEN: opts.token, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: "hcd", OIDC_CLIENT_SECRET: opts.clientSecret },
    });
    rig = { provider, server, site: `http://localhost:${server.port}` };
    provider.configure(rig.site, "hcd", opts.clientSecret);
    for (const email of opts.users) {
      await ok(
        call(server.url, "POST", "/admin/v1/users", {
          headers: { authorization: `Bearer ${opts.token}` },
          body: { email, password: "a long enough password" },
        }),
      );
    }
  });
  test.after(async () => {
    await provider?.close();
    if (rig === undefined) return;
    const output = rig.server.output();
    await stopServer(rig.server);
    dir.remove();
    assert.equal(troubleIn(output), [], "no unexpected errors in the server's output");
    assert.not.ok(output.includes(opts.clientSecret), "the client secret is never logged");
  });
  return () => {
    if (rig === undefined) throw new Error("the SSO rig starts in test.before");
    return rig;
  };
}

/** A started SSO sign-in: the provider URL hcd sends the browser to, and hcd's state cookie ("name=value"). */
export type StartedSignIn = { readonly providerUrl: string; readonly stateCookie: string };

/** Presses "Sign in with SSO" at hcd (`hcdUrl`, the address to reach it): what its answer carries. */
export async function startSignIn(hcdUrl: string): Promise<StartedSignIn> {
  const response = await fetch(`${hcdUrl}/signin/oidc`, { method: "POST", redirect: "manual" });
  const page = await response.text();
  if (response.status !== 200) throw new Error(`POST /signin/oidc: ${response.status} ${page}`);
  const providerUrl = /content="0;url=([^"]+)"/.exec(page)?.[1]?.replaceAll("&amp;", "&");
  const stateCookie = response.headers
    .getSetCookie()
    .find((c) => c.startsWith("hcd_oidc="))
    ?.split(";")[0];
  if (providerUrl === undefined || stateCookie === undefined) throw new Error(`no provider URL or state cookie in:\n${page}`);
  return { providerUrl, stateCookie };
}

/**
 * Goes through the provider's login and consent pages as `login` from `providerUrl`, as a browser would
 * (the provider's own cookies kept), and returns the URL the provider redirects to on hcd's side.
 */
export async function throughProvider(providerUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  const origin = new URL(providerUrl).origin;
  let next: { url: string; form?: URLSearchParams } = { url: providerUrl };
  for (let step = 0; step < 20; step++) {
    const response = await fetch(next.url, {
      method: next.form === undefined ? "GET" : "POST",
      body: next.form,
      redirect: "manual",
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get("location");
    if (location !== null) {
      const target = new URL(location, next.url);
      if (target.origin !== origin) return target; // back to hcd
      next = { url: target.href };
      continue;
    }
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
    if (action === undefined || prompt === undefined) throw new Error(`the provider's page has no form (${response.status}):\n${page}`);
    const fields: Record<string, string> = prompt === "login" ? { prompt, login, password: "anything" } : { prompt };
    next = { url: new URL(action.replaceAll("&amp;", "&"), next.url).href, form: new URLSearchParams(fields) };
  }
  throw new Error("the provider did not send the browser back within 20 steps");
}

/** In a browser at hcd's sign-in page: clicks "Sign in with SSO" and goes through the provider's login and consent pages as `login`. */
export async function clickThroughProvider(page: Page, login: string): Promise<void> {
  await page.getByRole("button", { name: "Sign in with SSO" }).click();
  await page.getByPlaceholder("Enter any login").fill(login);
  await page.getByPlaceholder("and password").fill("anything");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}
