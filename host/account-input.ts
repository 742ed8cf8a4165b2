// What an account is given, checked before anything is stored: an email address (kept trimmed and
// lowercased), a password's length, a Django password hash brought over from Healthchecks, the admin flag.
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import { djangoHashProblem, isDjangoHash, MIN_PASSWORD_LENGTH } from "./passwords.ts";

/** A new user's fields as given (the admin API's JSON, the dashboard's forms, an import). */
export type NewUserInput = { email: unknown; password?: unknown; passwordHash?: unknown; admin?: unknown };

/** A new user's fields, checked: `passwordHash` a Django hash kept as is, or null for none (undefined: not given). */
export type CheckedNewUser = {
  readonly email: string;
  readonly password: string | undefined;
  readonly passwordHash: string | null | undefined;
  readonly admin: boolean;
};

/** Checks a new user's fields: invalid (with the field) for a malformed email, a short password, both a password and a hash, a hash not kept, a non-boolean admin. */
export function newUserOf(input: NewUserInput): Outcome<CheckedNewUser> {
  const email = emailOf(input.email);
  if (email === null) return invalid("email", "email must be an email address");
  if (input.password !== undefined && !isPassword(input.password))
    return invalid("password", `password must be a string of ${MIN_PASSWORD_LENGTH} or more characters`);
  if (input.password !== undefined && input.passwordHash !== undefined)
    return invalid("password_hash", "password_hash and password cannot be given together");
  // a user brought over from Healthchecks keeps its Django hash until the next sign-in replaces it
  // (null: none, and no invitation either: they sign in through SSO or set a password by a reset)
  if (
    input.passwordHash !== undefined &&
    input.passwordHash !== null &&
    (typeof input.passwordHash !== "string" || !isDjangoHash(input.passwordHash))
  ) {
    return invalid(
      "password_hash",
      typeof input.passwordHash === "string" ? `is ${djangoHashProblem(input.passwordHash) ?? "not kept"}` : "is not a string or null",
    );
  }
  if (input.admin !== undefined && typeof input.admin !== "boolean") return invalid("admin", "admin must be true or false");
  return ok({ email, password: input.password, passwordHash: input.passwordHash, admin: input.admin === true });
}

/** The email as kept (trimmed, lowercased), or null when it is not one. */
export function emailOf(text: unknown): string | null {
  if (typeof text !== "string") return null;
  const email = text.trim().toLowerCase();
  return email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email) ? email : null;
}

/** Why `value` can't be a password (too short, too long), or null. */
export function passwordProblem(value: unknown): string | null {
  return isPassword(value) ? null : `The password must be ${MIN_PASSWORD_LENGTH} or more characters.`;
}

export function isPassword(value: unknown): value is string {
  return typeof value === "string" && [...value].length >= MIN_PASSWORD_LENGTH && value.length <= 1024;
}
