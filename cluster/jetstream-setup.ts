// Creating the cluster's streams and buckets, which every node does at start-up, often at the same moment
// as the others. Creation is idempotent (the same configuration again is accepted), but Debian's 2.9.10
// sometimes leaves a create request unanswered when another node creates the same stream concurrently
// (seen here: a TIMEOUT on one of three nodes opening the same buckets), so a request that times out is
// simply sent again.
import { DiscardPolicy, RetentionPolicy, StorageType } from "nats";
import type { JetStreamManager, NatsConnection, NatsError } from "nats";

/**
 * The connection's JetStream manager, without the account-info request the client sends by default to
 * check that JetStream is there: the meta leader answers that one, and after a NATS server's loss the
 * cluster may have none for many seconds, while the streams' own leaders (which answer everything this
 * code asks) are already back. A takeover opened in that window must not fail on the check.
 */
export function managerOf(connection: NatsConnection, timeoutMs?: number): Promise<JetStreamManager> {
  return connection.jetstreamManager(timeoutMs === undefined ? { checkAPI: false } : { checkAPI: false, timeout: timeoutMs });
}

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

/**
 * Creates stream `name` over `subjects` with `replicas` copies on disk unless it exists. Its messages are
 * kept until the code lets them go (a purge), never dropped for space or age.
 */
export async function ensureStream(jsm: JetStreamManager, name: string, subjects: string[], replicas: number): Promise<void> {
  await createIdempotently(async () => {
    try {
      await jsm.streams.info(name);
    } catch (error) {
      if ((error as NatsError).api_error?.err_code !== 10059) throw error; // 10059: stream not found
      await jsm.streams.add({
        name, subjects, num_replicas: replicas, storage: StorageType.File,
        retention: RetentionPolicy.Limits, discard: DiscardPolicy.New, max_msgs: -1, max_bytes: -1, max_age: 0,
      });
    }
  });
}
