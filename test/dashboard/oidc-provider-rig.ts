// A real OpenID Connect provider for the SSO tests (oidc-provider from npm, its development login and
// consent pages) on loopback, and a walk through those pages with plain fetch that stops at the provider's
// redirect back to hcd's callback: the tests then open that URL themselves, as it came, changed or twice.
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

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
    if (provider === undefined) { res.statusCode = 503; res.end(); return; }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    configure(site, clientId, clientSecret) {
      provider = new Provider(issuer, {
        clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [`${site}/signin/oidc/callback`], response_types: ["code"], grant_types: ["authorization_code"] }],
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
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
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
  const stateCookie = response.headers.getSetCookie().find((c) => c.startsWith("hcd_oidc="))?.split(";")[0];
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
