// What the front ends ask of a shard, as plain data: pings as received, and check list filters.
import type { Millis, PingSignal } from "./model.ts";

/** How a ping names its check. */
export type PingTarget =
  | { readonly uuid: string }
  | { readonly pingKey: string; readonly slug: string; readonly create: boolean };

/** A ping as the front end received it; the shard classifies it (URL signal, method, keywords). */
export type PingCommand = {
  readonly target: PingTarget;
  readonly signal: PingSignal;
  readonly exitStatus: number | null; // 0-255 from /<exit-status>; already validated
  readonly method: string;
  readonly scheme: string;
  readonly remoteAddr: string;
  readonly ua: string;
  readonly rid: string | null; // lower-case canonical uuid, already validated
  // cut to the larger of ping_body_limit and KEYWORD_BODY_BYTES: the shard stores the first and classifies on the second
  readonly body: Uint8Array | null;
  /** Email pings: subject and plain text, classified with the email keyword rules. */
  readonly email?: { readonly subject: string; readonly text: string };
  readonly at: Millis;
};

export type CheckQuery = { readonly slug?: string; readonly tags: readonly string[] };
