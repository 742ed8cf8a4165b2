// What the restart tests of the alerting features share: a pool on a virtual clock over a temporary store
// (closed and opened again on the same directory), a project notifying a real webhook receiver, and a wait
// for the receiver's requests.
import type { PoolOptions } from "../../app/pools.ts";
import type { Millis } from "../../engine/model.ts";
import type { Pool } from "../../host/pool-api.ts";

/** A one-shard pool on the virtual clock starting at `startAt`, durable at each commit. */
export function virtualPoolOptions(dataDir: string, startAt: Millis): PoolOptions {
  return {
    dataDir,
    shards: 1,
    durability: "commit",
    startAt,
    clock: "virtual",
    notify: { siteRoot: "http://hcd.test", allowPrivateIps: true, smtpUrl: null },
  };
}

/** Resolves once `list` has `count` items; fails after 5 s of real time. */
export async function untilCount<T>(list: T[], count: number): Promise<void> {
  const started = Date.now();
  while (list.length < count) {
    if (Date.now() - started > 5_000) throw new Error(`waited for ${count}, have ${list.length}: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A project named "ops" whose one webhook channel GETs `downUrl` and `upUrl` (placeholders allowed). */
export async function projectWithWebhook(pool: Pool, at: Millis, urls: { down: string; up: string }) {
  const project = await pool.createProject({ name: "ops", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 1000 }, at);
  const hook = await pool.addChannel(
    project.id,
    {
      kind: "webhook",
      name: "hook",
      value: {
        kind: "webhook",
        json: false,
        spec: {
          method_down: "GET",
          url_down: urls.down,
          body_down: "",
          headers_down: {},
          method_up: "GET",
          url_up: urls.up,
          body_up: "",
          headers_up: {},
        },
      },
    },
    at,
  );
  if (!hook.ok) throw new Error("the webhook channel was refused");
  return { project, hook: hook.value };
}
