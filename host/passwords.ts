// Passwords hashed with scrypt from node:crypto (no native package to build or download): N = 2^15,
// r = 8, p = 1 (OWASP's minimum for scrypt), a 16-byte random salt and a 32-byte key, which takes
// 32 MiB and some tens of milliseconds a hash, off the event loop (libuv's thread pool). Stored as
// "scrypt$N$r$p$salt$key" (base64url), so a later change of parameters still verifies older hashes.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const MAX_MEMORY = 64 * 1024 * 1024; // 128 · N · r = 32 MiB, above Node's default limit of exactly that

/** The least length of a password (CONTRACT "Users, roles and sign-in"). */
export const MIN_PASSWORD_LENGTH = 12;

/** Returns the stored form of `password`: parameters, salt and key. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { ...PARAMS, keyBytes: KEY_BYTES });
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Returns true when `password` is the one `stored` was made from (constant-time compare); false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || key === undefined) return false;
  const expected = Buffer.from(key, "base64url");
  const given = await derive(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p), keyBytes: expected.length });
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A hash of no password, verified against when an email has no account, so both answers take as long. */
export const DECOY_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

function derive(password: string, salt: Buffer, opts: { N: number; r: number; p: number; keyBytes: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, opts.keyBytes, { N: opts.N, r: opts.r, p: opts.p, maxmem: MAX_MEMORY }, (error, key) => {
      if (error === null) resolve(key);
      else reject(error);
    });
  });
}
