// The TOTP second factor (RFC 6238, as authenticator apps compute it) with otplib, and its recovery codes:
// the rules, and the user records they make; host/accounts.ts stores what they return.
import { randomBytes, createHash } from "node:crypto";
import { generateSecret, generateURI, verify } from "otplib";
import type { Millis } from "../engine/model.ts";
import type { StoredSecondFactor, StoredUser } from "../persistence/accounts-file.ts";

/** Recovery codes made when the second factor is turned on, each usable once instead of a code. */
export const RECOVERY_CODES = 10;
/** Codes of the time steps either side of now are taken too: a phone's clock may be off by up to 30 s. */
const TOLERANCE_S = 30;
const PERIOD_S = 30; // otplib's default, and every authenticator app's

/** A new secret (base32) and the otpauth:// URI an authenticator app takes for it. */
export function newSecret(email: string): { secret: string; uri: string } {
  const secret = generateSecret();
  return { secret, uri: secretUri(email, secret) };
}

/** The otpauth:// URI of `secret` for the user with this email. */
export function secretUri(email: string, secret: string): string {
  return generateURI({ issuer: "hcd", label: email, secret });
}

/** Returns the time step of a valid code for `secret` at `at`, or null (wrong, or of a step not after `afterStep`; null: none used yet). */
export async function codeStep(secret: string, code: string, opts: { at: Millis; afterStep: number | null }): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const epoch = Math.floor(opts.at / 1000);
  const after = opts.afterStep === null ? {} : { afterTimeStep: opts.afterStep };
  const result = await verify({ secret, token: code, epoch, epochTolerance: TOLERANCE_S, ...after });
  return result.valid ? Math.floor(epoch / PERIOD_S) + result.delta : null;
}

/** Fresh recovery codes (shown once) and the hashes kept of them. */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, () =>
    randomBytes(8)
      .toString("hex")
      .replace(/(.{4})(?!$)/g, "$1-"),
  );
  return { codes, hashes: codes.map(recoveryHash) };
}

/** The second factor with this recovery code used up, or null when it is not one of its unused codes. */
export function useRecoveryCode(factor: StoredSecondFactor, code: string): StoredSecondFactor | null {
  const hash = recoveryHash(code);
  if (!factor.recoveryHashes.includes(hash)) return null;
  return { ...factor, recoveryHashes: factor.recoveryHashes.filter((h) => h !== hash) };
}

/** The user with the second factor on (`factor`), every session ended (a new generation); null when it is on already. */
export function withSecondFactorOn(user: StoredUser, factor: StoredSecondFactor): StoredUser | null {
  // on already: a new secret would replace the one that turning off asks a code of, with the session alone
  if ((user.secondFactor ?? null) !== null) return null;
  return { ...user, secondFactor: factor, sessionGeneration: (user.sessionGeneration ?? 0) + 1 };
}

/** The user with the second factor off, every session ended (a new generation). */
export function withSecondFactorOff(user: StoredUser): StoredUser {
  return { ...user, secondFactor: null, sessionGeneration: (user.sessionGeneration ?? 0) + 1 };
}

/**
 * The user once `code` is accepted: `step` (the code's time step, null when it is no current code) later than
 * the last one used, else `code` one of the unused recovery codes, which it uses up; null when it is neither.
 */
export function withCodeUsed(user: StoredUser, step: number | null, code: string): StoredUser | null {
  const current = user.secondFactor ?? null;
  if (current === null) return null;
  if (step !== null && step > current.lastStep) return { ...user, secondFactor: { ...current, lastStep: step } };
  const used = step === null ? useRecoveryCode(current, code) : null;
  return used === null ? null : { ...user, secondFactor: used };
}

function recoveryHash(code: string): string {
  return createHash("sha256").update(code.trim().toLowerCase()).digest("hex");
}
