// Passwords hashed with scrypt from node:crypto (no native package to build or download): N = 2^15
// (Accounts' cost, PASSWORD_HASH_N, may lower it for a test instance), r = 8, p = 1 (OWASP's minimum for scrypt), a 16-byte random salt and a 32-byte key, which takes
// 32 MiB and some tens of milliseconds a hash, off the event loop (libuv's thread pool). Stored as
// "scrypt$N$r$p$salt$key" (base64url), so a later change of parameters still verifies older hashes.
// Users brought over from Healthchecks keep their Django hash ("pbkdf2_sha256$iterations$salt$hash",
// Django's default, or pbkdf2_sha1) until their first sign-in, which replaces it with hcd's own.
import { pbkdf2, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** OWASP's minimum cost for scrypt, the default; a lower one is for test instances (PASSWORD_HASH_N). */
export const DEFAULT_PASSWORD_HASH_N = 2 ** 15;
const PARAMS = { r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const MAX_MEMORY = 64 * 1024 * 1024; // 128 · N · r = 32 MiB, above Node's default limit of exactly that

/** The least length of a password (CONTRACT "Users, roles and sign-in"). */
export const MIN_PASSWORD_LENGTH = 12;

/** Returns the stored form of `password` hashed at scrypt cost `n` (a power of two): parameters, salt and key. */
export async function hashPassword(password: string, n: number): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { N: n, ...PARAMS, keyBytes: KEY_BYTES });
  return ["scrypt", n, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Returns true when `password` is the one `stored` was made from (constant-time compare); false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (isDjangoHash(stored)) return verifyDjangoHash(password, stored);
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || key === undefined) return false;
  const expected = Buffer.from(key, "base64url");
  const given = await derive(password, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    keyBytes: expected.length,
  });
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A hash of no password at cost `n`, verified against when an email has no account, so both answers take as long. */
export function decoyHash(n: number): string {
  return `scrypt$${n}$${PARAMS.r}$${PARAMS.p}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
}

function derive(password: string, salt: Buffer, opts: { N: number; r: number; p: number; keyBytes: number }): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, opts.keyBytes, { N: opts.N, r: opts.r, p: opts.p, maxmem: MAX_MEMORY }, (error, key) => {
      if (error === null) resolve(key);
      else reject(error);
    });
  });
}

/** Django's PBKDF2 hashers (django/contrib/auth/hashers.py): the algorithm, its digest and the digest's length in bytes. */
const DJANGO_PBKDF2 = { pbkdf2_sha256: { digest: "sha256", bytes: 32 }, pbkdf2_sha1: { digest: "sha1", bytes: 20 } } as const;
/** The most iterations a brought-over hash may ask for: Django 5.2 uses 1,000,000; more would let a hostile database stall sign-ins. */
export const DJANGO_MAX_ITERATIONS = 10_000_000;

/**
 * Returns why a Django password hash cannot be kept, or null when it can: "<pbkdf2_sha256|pbkdf2_sha1>$<iterations>$<salt>$<base64 digest>".
 * Django's other hashers (argon2, bcrypt, scrypt) and unusable passwords ("!...") are not kept.
 */
export function djangoHashProblem(stored: string): string | null {
  const parts = stored.split("$");
  const algorithm = parts[0];
  if (stored.startsWith("!") || stored === "") return "no usable password";
  if (!Object.hasOwn(DJANGO_PBKDF2, algorithm))
    return `a password hash of another kind (${algorithm.slice(0, 20)}) than pbkdf2_sha256 or pbkdf2_sha1`;
  const { bytes } = DJANGO_PBKDF2[algorithm as keyof typeof DJANGO_PBKDF2];
  const [, iterations, salt, digest] = parts;
  if (parts.length !== 4 || !/^[1-9][0-9]{0,7}$/.test(iterations) || Number(iterations) > DJANGO_MAX_ITERATIONS)
    return "a malformed password hash (iterations)";
  if (salt === "" || salt.length > 128) return "a malformed password hash (salt)";
  if (!/^[A-Za-z0-9+/]+=*$/.test(digest) || Buffer.from(digest, "base64").length !== bytes) return "a malformed password hash (digest)";
  return null;
}

/** True for a stored hash of Django's kept form (brought over, to be replaced at the next sign-in). */
export function isDjangoHash(stored: string): boolean {
  return stored.startsWith("pbkdf2_") && djangoHashProblem(stored) === null;
}

function verifyDjangoHash(password: string, stored: string): Promise<boolean> {
  const [algorithm, iterations, salt, digest] = stored.split("$");
  const { digest: hash, bytes } = DJANGO_PBKDF2[algorithm as keyof typeof DJANGO_PBKDF2];
  const expected = Buffer.from(digest, "base64");
  return new Promise((resolve, reject) => {
    // Django hashes the password's UTF-8 bytes as given (no normalisation) with the salt's
    pbkdf2(Buffer.from(password, "utf8"), Buffer.from(salt, "utf8"), Number(iterations), bytes, hash, (error, key) => {
      if (error === null) resolve(key.length === expected.length && timingSafeEqual(key, expected));
      else reject(error);
    });
  });
}
