// The pages of a user's own account: their sessions with a "Sign out" for each, the email, the password, the
// email reports, the second factor and deleting the account; the invitation page that sets a password.
import type { ReportChoice } from "../../host/report-claims.ts";
import { REPORT_CHOICES } from "../../host/report-claims.ts";
import type { Millis } from "../../engine/model.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import { html, raw } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { csrfField, documentOf } from "./page-frame.ts";

export type SessionRow = { readonly handle: string; readonly openedAt: Millis | null; readonly current: boolean };

/** The second factor as the account page shows it: on, or off with a fresh secret to turn it on with. */
export type SecondFactorView =
  | { readonly on: true }
  | {
      readonly on: false;
      readonly secret: string;
      readonly uri: string;
      /** the URI as a QR code, SVG markup made by the qrcode library */ readonly qr: string;
    };

/** The account page: the user's email, every session they have open, and the second factor. */
export function accountPage(
  viewer: Viewer,
  opts: {
    email: string;
    /** The user's email change waiting for the link mailed to the new address, if any. */
    emailWaiting?: { readonly email: string; readonly expiresAt: Millis } | null;
    sessions: readonly SessionRow[];
    notice: string | null;
    hasPassword: boolean;
    secondFactor: SecondFactorView;
    error?: string | null;
    passwordError?: string | null;
    recoveryCodes?: readonly string[];
    emailError?: string;
    deleteError?: string;
    /** The user's email reports (off, weekly, monthly), and whether hcd can send email (SMTP_URL). */
    reports: { readonly choice: ReportChoice; readonly mailOn: boolean };
  },
): string {
  const passwordField = (id: string, label = "Your password") =>
    opts.hasPassword
      ? html`<label for="${id}">${label}</label><input id="${id}" name="password" type="password" autocomplete="current-password" required>`
      : "";
  const rows = opts.sessions.map(
    (s) => html`<tr><td>${s.openedAt === null ? "unknown" : isoSeconds(s.openedAt)}</td><td>${s.current ? "this browser" : ""}</td>
<td><form method="post" action="/account/sessions/signout" class="inline">${csrfField(viewer)}<input type="hidden" name="session" value="${s.handle}">
<button type="submit" aria-label="Sign out the session opened ${s.openedAt === null ? "" : isoSeconds(s.openedAt)}">Sign out</button></form></td></tr>`,
  );
  return documentOf({
    title: "Account",
    viewer,
    body: html`<h1>Account</h1><p>Signed in as <strong>${opts.email}</strong>.</p>
${opts.notice === null ? "" : html`<p class="notice" role="status">${opts.notice}</p>`}
<h2>Sessions</h2>
<table class="list sessions"><thead><tr><th scope="col">Signed in at</th><th scope="col"></th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table>
<h2>Email</h2>
${opts.emailError === undefined ? "" : html`<p class="error" role="alert">${opts.emailError}</p>`}
${opts.emailWaiting == null ? "" : html`<p class="pending-email">${opts.emailWaiting.email} becomes your email once the link mailed to it is opened (until ${isoSeconds(opts.emailWaiting.expiresAt)}).</p>`}
<form method="post" action="/account/email">${csrfField(viewer)}
<label for="new-email">New email</label><input id="new-email" name="email" type="email" autocomplete="email" required>
${passwordField("email-password", "Password, to confirm the new email")}
<button type="submit">Change email</button></form><p class="hint">${
      opts.reports.mailOn
        ? "A link goes to the new email: it becomes yours once the link is opened (within one hour), and every other session of your account is then signed out."
        : "You sign in with the new email from now on; every other session of your account is signed out."
    }</p>
${
  opts.hasPassword
    ? html`<h2>Password</h2>
${opts.passwordError == null ? "" : html`<p class="error" role="alert">${opts.passwordError}</p>`}
<form method="post" action="/account/password">${csrfField(viewer)}
<label for="current-password">Current password</label><input id="current-password" name="current" type="password" autocomplete="current-password" required>
<label for="changed-password">New password</label><input id="changed-password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<button type="submit">Change password</button></form><p class="hint">Every other session of your account is signed out.</p>`
    : ""
}
<h2>Email reports</h2>
<p>A summary of your projects' checks and their downtime (UTC weeks from Monday, or calendar months), sent to ${opts.email} after each period.</p>
${opts.reports.mailOn ? "" : html`<p class="hint">This server sends no email yet (SMTP_URL is not set): reports go out once it does.</p>`}
<form method="post" action="/account/reports" class="row">${csrfField(viewer)}
<label for="f-reports">Email reports</label>
<select id="f-reports" name="reports">${REPORT_CHOICES.map((choice) => html`<option value="${choice}"${choice === opts.reports.choice ? html` selected` : ""}>${REPORT_LABELS[choice]}</option>`)}</select>
<button type="submit">Save reports</button></form>
<h2>Second factor</h2>
${opts.error == null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
${
  opts.recoveryCodes === undefined
    ? ""
    : html`<p role="status">The second factor is on. Keep these recovery codes somewhere safe: each signs in once instead of a code, and they are shown only now.</p>
<ul class="recovery-codes">${opts.recoveryCodes.map((code) => html`<li><code>${code}</code></li>`)}</ul>`
}
${
  opts.secondFactor.on
    ? html`<p>On: a sign-in asks for the code of your authenticator app after the password.</p>
<form method="post" action="/account/second-factor/off">${csrfField(viewer)}
<label for="off-code">Code</label><input id="off-code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Turn off</button></form>`
    : html`<p>Off. To turn it on, scan this QR code with an authenticator app (or add the secret by hand, or open the link on the phone), then type the code it shows.</p>
<figure class="totp-qr" role="img" aria-label="QR image of the link below, for an authenticator app to scan">${raw(opts.secondFactor.qr)}</figure>
<p>Secret: <code class="totp-secret">${opts.secondFactor.secret}</code></p><p><a href="${opts.secondFactor.uri}">${opts.secondFactor.uri}</a></p>
<form method="post" action="/account/second-factor/on">${csrfField(viewer)}<input type="hidden" name="secret" value="${opts.secondFactor.secret}">
<label for="on-code">Code</label><input id="on-code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
${passwordField("on-password")}
<button type="submit">Turn on</button></form><p class="hint">Turning it on or off signs out every other session of your account.</p>`
}
<h2>Delete your account</h2>
${opts.deleteError === undefined ? "" : html`<p class="error" role="alert">${opts.deleteError}</p>`}
<p>Your account, its sessions and your roles in every project are removed for good; the projects and their checks stay. The only owner of a project makes another member owner first.</p>
<form method="post" action="/account/delete">${csrfField(viewer)}
${passwordField("delete-password", "Password, to confirm the deletion")}
<button type="submit" class="danger">Delete my account</button></form>`,
  });
}

const REPORT_LABELS: Record<ReportChoice, string> = { off: "Off", weekly: "Weekly (each Monday)", monthly: "Monthly (each 1st)" };

/** The page a link that sets a password opens: the password to choose, and the second factor's code when the user has it on. */
export function invitePage(opts: { email: string; error: string | null; code: boolean }): string {
  return documentOf({
    title: "Choose a password",
    viewer: null,
    body: html`<section class="card narrow"><h1>Choose a password</h1><p>For <strong>${opts.email}</strong>.</p>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
<form method="post">
<label for="new-password">Password</label>
<input id="new-password" name="password" type="password" autocomplete="new-password" minlength="12" required autofocus>
${
  opts.code
    ? html`<label for="code">Code</label>
<input id="code" name="code" autocomplete="one-time-code" required>
<p class="hint">Your second factor is on: the 6 digits your authenticator app shows, or one of your recovery codes.</p>`
    : ""
}
<button type="submit">Set password</button>
</form></section>`,
  });
}

/** The page an email change's link opens: the change to confirm (a button, so a mail scanner that opens links changes nothing), or why it was refused. */
export function emailChangePage(opts: { from: string; to: string; error: string | null }): string {
  return documentOf({
    title: "Confirm your new email",
    viewer: null,
    body: html`<section class="card narrow"><h1>Confirm your new email</h1>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
<p>The hcd account <strong>${opts.from}</strong> is to have the email <strong>${opts.to}</strong>. You sign in with it from then on, and every session of the account is signed out.</p>
<form method="post"><button type="submit">Confirm new email</button></form></section>`,
  });
}

/** The page once an email change took effect in a browser not signed in as its user. */
export function emailChangedPage(email: string): string {
  return documentOf({
    title: "Email changed",
    viewer: null,
    body: html`<section class="card narrow"><h1>Email changed</h1><p role="status">Your email is now <strong>${email}</strong>. Every session of your account has been signed out: <a href="/">sign in</a> with the new email.</p></section>`,
  });
}

/**
 * The page of an invitation that gives a role to an account that signs in: "accept" for its user signed
 * in (`viewer`), else what to do first.
 */
export function grantPage(
  viewer: Viewer | null,
  opts: { email: string; role: string; project: string; state: "accept" | "sign-in" | "not-set-up" },
): string {
  const what = html`the role <strong>${opts.role}</strong> in the project <strong>${opts.project}</strong> to <strong>${opts.email}</strong>`;
  const body =
    opts.state === "accept"
      ? html`<p>This invitation gives ${what}.</p><form method="post">${viewer === null ? "" : csrfField(viewer)}<button type="submit">Accept</button></form>`
      : opts.state === "sign-in"
        ? html`<p>This invitation gives ${what}. <a href="/">Sign in</a> as ${opts.email}, then open this link again.</p>`
        : html`<p>This invitation gives ${what}, whose account is not set up yet: set it up with its first invitation link (or a password reset), sign in, then open this link again.</p>`;
  return documentOf({ title: "Invitation", viewer, body: html`<section class="card narrow"><h1>Invitation</h1>${body}</section>` });
}

/** The page that sends a password reset link: one field, and the same notice whatever the email. */
export function resetPage(opts: { notice: string | null; error: string | null }): string {
  return documentOf({
    title: "Reset your password",
    viewer: null,
    body: html`<section class="card narrow"><h1>Reset your password</h1>
${opts.notice === null ? "" : html`<p class="notice" role="status">${opts.notice}</p>`}
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
<form method="post" action="/reset">
<label for="reset-email">Email</label>
<input id="reset-email" name="email" type="email" autocomplete="username" required autofocus>
<button type="submit">Send reset link</button>
</form><p><a href="/">Back to sign-in</a></p></section>`,
  });
}

/** The sign-in's second step: the code of the user's authenticator app, or a recovery code. */
export function codePage(opts: { pending: string; error: string | null; next?: string }): string {
  return documentOf({
    title: "Second factor",
    viewer: null,
    body: html`<section class="card narrow"><h1>Second factor</h1>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
<form method="post" action="/signin/code"><input type="hidden" name="pending" value="${opts.pending}">${opts.next === undefined || opts.next === "/" ? "" : html`<input type="hidden" name="next" value="${opts.next}">`}
<label for="code">Code</label>
<input id="code" name="code" autocomplete="one-time-code" required autofocus>
<p class="hint">The 6 digits your authenticator app shows, or one of your recovery codes.</p>
<button type="submit">Continue</button>
</form></section>`,
  });
}
