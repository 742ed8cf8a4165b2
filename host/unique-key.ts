// unique_key: the read-only API's stand-in for a check's uuid (reference: Check.unique_key).
import { createHash } from "node:crypto";

/** Returns the lower-case hex SHA-1 of the first 16 hex digits of the uuid without dashes. */
export function uniqueKeyOf(uuid: string): string {
  return createHash("sha1").update(uuid.replace(/-/g, "").slice(0, 16)).digest("hex");
}
