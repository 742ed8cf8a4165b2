// Single sign-on with OpenID Connect through openid-client: discovery of the issuer (on first use, again
// after a failure), the authorization URL with PKCE, state and nonce, and the code exchange that checks
// all three and the ID token, then asks the userinfo endpoint for the email when the ID token has none.
// Which user the claims name is decided by verifiedEmailOf, pure.
import type * as OpenId from "openid-client";
import type { Role } from "../engine/roles.ts";

/**
 * OIDC_DEFAULT_ROLE: whether a first sign-in with a verified email no user has makes that user (null: it
 * does not), and the role the new user then holds in one project (grant null: none anywhere).
 */
export type OidcNewUsers = { readonly grant: { readonly role: Role; readonly projectId: string } | null } | null;

/** OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, and OIDC_DEFAULT_ROLE (absent: null). */
export type OidcSettings = {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly newUsers: OidcNewUsers;
};

/** One started sign-in: the URL to send the browser to and what its callback is checked against. */
export type OidcStart = { readonly url: string; readonly state: string; readonly nonce: string; readonly codeVerifier: string };

/** openid-client, loaded on the first single sign-on rather than by every start. */
const openIdClient = (): Promise<typeof OpenId> => import("openid-client");

export class OidcClient {
  readonly #settings: OidcSettings;
  readonly #redirectUri: string;
  #config: Promise<OpenId.Configuration> | null = null;

  constructor(settings: OidcSettings, redirectUri: string) {
    this.#settings = settings;
    this.#redirectUri = redirectUri;
  }

  /** A new sign-in: fresh state, nonce and PKCE verifier (kept by the caller, never sent but as a hash). */
  async start(): Promise<OidcStart> {
    const config = await this.#discovered();
    const client = await openIdClient();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.#redirectUri,
      scope: "openid email",
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    });
    return { url: url.href, state, nonce, codeVerifier };
  }

  /**
   * Exchanges the callback's code; throws unless state, nonce, PKCE and the ID token all check out. When the
   * ID token carries no email, the email and email_verified claims come from the userinfo endpoint (for the
   * same subject, which openid-client checks), both from there: a verified flag never vouches for another's email.
   */
  async finish(callbackUrl: URL, started: OidcStart): Promise<Record<string, unknown>> {
    const config = await this.#discovered();
    const client = await openIdClient();
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: started.codeVerifier,
      expectedState: started.state,
      expectedNonce: started.nonce,
      idTokenExpected: true,
    });
    const claims: Record<string, unknown> = { ...tokens.claims() };
    if (typeof claims.email === "string" || typeof claims.sub !== "string") return claims;
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    return { ...claims, email: info.email, email_verified: info.email_verified };
  }

  #discovered(): Promise<OpenId.Configuration> {
    if (this.#config === null) {
      const { issuer, clientId, clientSecret } = this.#settings;
      const insecure = isLoopbackHttp(issuer); // plain http only to a provider on this machine (config refuses others)
      this.#config = openIdClient().then((client) =>
        client.discovery(
          new URL(issuer),
          clientId,
          clientSecret,
          undefined,
          insecure ? { execute: [client.allowInsecureRequests] } : undefined,
        ),
      );
      this.#config.catch(() => {
        this.#config = null;
      }); // a provider that was down is asked again next time
    }
    return this.#config;
  }
}

/** The lower-cased email an ID token's claims sign in as, or why they don't: only a verified email counts. */
export function verifiedEmailOf(claims: Record<string, unknown>): { ok: true; email: string } | { ok: false; reason: string } {
  const email = claims.email;
  if (typeof email !== "string" || email === "") return { ok: false, reason: "The identity provider sent no email address." };
  if (claims.email_verified !== true) return { ok: false, reason: "The identity provider has not verified this email address." };
  return { ok: true, email: email.trim().toLowerCase() };
}

/** True for an http:// URL to localhost, 127.0.0.0/8 or [::1]. */
export function isLoopbackHttp(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    return protocol === "http:" && (hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname));
  } catch {
    return false;
  }
}
