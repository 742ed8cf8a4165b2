// Creating the cluster's streams and buckets, which every node does at start-up, often at the same moment
// as the others. Creation is idempotent (the same configuration again is accepted), but Debian's 2.9.10
// sometimes leaves a create request unanswered when another node creates the same stream concurrently
// (seen here: a TIMEOUT on one of three nodes opening the same buckets), so a request that times out is
// simply sent again.
import type { NatsError } from "nats";

/** Runs `create` again when it times out without an answer, up to `attempts` times; other errors are thrown at once. */
export async function createIdempotently<T>(create: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (error) {
      if (attempt >= attempts || !unanswered(error)) throw error;
    }
  }
}

function unanswered(error: unknown): boolean {
  const code = (error as Partial<NatsError>)?.code;
  return code === "TIMEOUT" || code === "503";
}
