// A signed-in dashboard session over loopback without a browser: sign in with a key, then GET pages and
// POST forms with the session's cookie and (unless told not to) its CSRF token.
import * as assert from "uvu/assert";

/** A signed-in dashboard session: its cookie, and `page`/`post` that send it. */
export async function session(url: string, key: string) {
  const signedIn = await fetch(`${url}/signin`, { method: "POST", body: new URLSearchParams({ key }), redirect: "manual" });
  const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0];
  assert.ok(cookie.includes("="), `signed in with ${key.slice(0, 4)}…: ${signedIn.status}`);
  const page = async (path: string) => {
    const res = await fetch(url + path, { headers: { cookie } });
    return { status: res.status, text: await res.text() };
  };
  const csrf = /name="csrf" value="([^"]+)"/.exec((await page("/")).text)?.[1] ?? "";
  const post = async (path: string, form: Record<string, string>, withCsrf = true) => {
    const res = await fetch(url + path, {
      method: "POST",
      headers: { cookie },
      redirect: "manual",
      body: new URLSearchParams(withCsrf ? { csrf, ...form } : form),
    });
    return { status: res.status, text: await res.text(), location: res.headers.get("location") };
  };
  return { page, post };
}
