// Starting a pool: its shards in this thread (tests, the CLI on a stopped DATA_DIR) or on worker threads
// (the server), each built by openShardHost.
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { wrap } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { Millis } from "../engine/model.ts";
import type { Pool } from "../host/pool-api.ts";
import type { ShardHandle } from "../host/shard-requests.ts";
import { ShardedPool } from "../host/pool.ts";
import { leftIntake, PingIntake } from "../host/ping-intake.ts";
import { removeIntake } from "../persistence/intake.ts";
import type { ShardHost } from "../host/shard-host.ts";
import { openStore } from "../persistence/store.ts";
import { openShardHost } from "./shard-setup.ts";
import { log } from "../host/log.ts";
import type { ShardSetup } from "./shard-setup.ts";
import type { Clock } from "../host/clock.ts";
import { systemClock, VirtualClock } from "../host/clock.ts";
import type { ClockMark } from "../persistence/clock-mark.ts";
import { UnknownTimeFile } from "../persistence/unknown-time.ts";

export type PoolOptions = Omit<ShardSetup, "index" | "count" | "startAt"> & {
  readonly shards: number;
  /** The instant to start at (the clock's now). */
  readonly startAt: Millis;
  /** The clock pings are stamped by (default: the real clock, or a virtual one standing at startAt). */
  readonly clockNow?: Clock;
  /** How far the previous run judged deadlines, kept on (persistence/clock-mark.ts); null or absent = not kept. */
  readonly mark?: ClockMark | null;
  /** How often the intake log lets go of the segments every shard has committed (default 10 s). */
  readonly intakeTrimEveryMs?: number;
  /** How long an acknowledged ping may wait for its shard when no other request goes to it (default 50 ms). */
  readonly intakeHandOffMs?: number;
};

/** Starts a pool whose shards live in this thread (tests; the same ShardHost code as the workers). */
export async function createInProcessPool(options: PoolOptions): Promise<Pool> {
  const intakeLeft = leftIntake(options.dataDir);
  const hosts = await openHosts({ ...options, intakeLeft });
  const intake = new PingIntake(
    options.dataDir,
    options.durability,
    hosts.map((host) => inProcessHandle(host)),
    { trimEveryMs: options.intakeTrimEveryMs, handOffMs: options.intakeHandOffMs },
  );
  const pool = new ShardedPool(intake.handles(), async () => {});
  await pool.init();
  useIntake(pool, intake, options.dataDir, intakeLeft);
  await startJudging(pool, options);
  return pool;
}

/**
 * Starts judging deadlines once every shard is open, right before the pool takes requests: first the
 * stretch hcd was not running (from the previous run's mark to now) is recorded as unknown time and the
 * checks whose deadline fell in it are held (CONTRACT "hcd's own downtime and clock"), then what fell due
 * meanwhile is applied, then (a real clock) the deadline ticker takes over. A passive pool (the CLI on a
 * stopped DATA_DIR) judges nothing.
 */
async function startJudging(pool: ShardedPool, options: PoolOptions): Promise<void> {
  if (options.passive === true) return;
  const real = options.clock === "real";
  const clock = options.clockNow ?? (real ? systemClock : new VirtualClock(options.startAt));
  const mark = options.mark ?? null;
  const at = clock.now();
  const fromAt = mark?.lastAt ?? null;
  const downtime = real && fromAt !== null && at > fromAt ? { fromAt, toAt: at } : null;
  // the stretch is on disk before any request is served: status pages and uptime show it as unknown
  const unknown = UnknownTimeFile.open(options.dataDir);
  if (downtime !== null) unknown.record(downtime);
  pool.useUnknownTime(async () => unknown.spans());
  const held = await pool.resumeAfter(downtime, at);
  if (downtime !== null) {
    log.info(
      {
        from: new Date(downtime.fromAt).toISOString(),
        to: new Date(downtime.toAt).toISOString(),
        seconds: Math.round((at - fromAt!) / 1000),
        held,
      },
      `hcd was not running for ${Math.round((at - fromAt!) / 1000)} s: ${held} check(s) whose deadline fell in that time are judged once their grace has passed`,
    );
  }
  mark?.record(at);
  pool.judgeFromNowOn(mark, real ? clock : null);
}

/** Lets the intake logs a crash left go (every shard has applied and committed their pings), and acknowledges pings from this pool's own. */
function useIntake(pool: ShardedPool, intake: PingIntake, dataDir: string, intakeLeft: readonly string[]): void {
  removeIntake(dataDir, intakeLeft);
  pool.useIntake(intake);
}

async function openHosts(options: PoolOptions & Pick<ShardSetup, "intakeLeft">): Promise<ShardHost[]> {
  const hosts: ShardHost[] = [];
  for (let index = 0; index < options.shards; index++) {
    const { clockNow: _clock, mark: _mark, ...plain } = options;
    hosts.push(await openShardHost({ ...plain, index, count: options.shards, startAt: options.startAt }));
  }
  return hosts;
}

/** The same `apply` as a worker's, without the hop. */
function inProcessHandle(host: ShardHost): ShardHandle {
  return { apply: (request) => host.apply(request) };
}

/** Starts SHARDS worker threads, each owning its projects; a crashed worker stops the process loudly. */
export async function createWorkerPool(options: PoolOptions): Promise<Pool> {
  // Replay what a crash left in the logs once, here, before the shards open the store together.
  await (await openStore(options.dataDir, { durability: options.durability })).close();
  const intakeLeft = leftIntake(options.dataDir);
  const script = fileURLToPath(new URL("./shard.worker.js", import.meta.url));
  const workers: Worker[] = [];
  const handles: ShardHandle[] = [];
  let started = false;
  let failStart: (error: Error) => void = () => {};
  const startFailed = new Promise<never>((_resolve, reject) => {
    failStart = reject;
  });
  startFailed.catch(() => {}); // observed through the race below
  for (let index = 0; index < options.shards; index++) {
    const { clockNow: _clock, mark: _mark, ...plain } = options; // plain data only crosses to a worker
    const setup: ShardSetup = { ...plain, index, count: options.shards, startAt: options.startAt, intakeLeft };
    const worker = new Worker(script, { workerData: setup });
    const crashed = (why: string) => {
      if (!started) return failStart(new Error(`shard ${index} failed to start: ${why}`));
      log.fatal({ shard: index }, `shard ${index} crashed: ${why}`);
      process.exit(70); // loudly, for a supervisor to restart: the store holds every acknowledged write
    };
    worker.on("error", (error) => crashed(error instanceof Error ? error.message : String(error)));
    worker.on("exit", (code) => crashed(`exited with code ${code}`));
    workers.push(worker);
    // comlink's Remote type loses apply's generic pairing; the worker serves the same ShardHost.apply
    handles.push(wrap(nodeEndpoint(worker)) as unknown as ShardHandle);
  }
  const intake = new PingIntake(options.dataDir, options.durability, handles, {
    trimEveryMs: options.intakeTrimEveryMs,
    handOffMs: options.intakeHandOffMs,
  });
  const pool = new ShardedPool(intake.handles(), async () => {
    for (const w of workers) w.removeAllListeners("error").removeAllListeners("exit");
    await Promise.all(workers.map((w) => w.terminate()));
  });
  try {
    await Promise.race([pool.init(), startFailed]);
  } catch (error) {
    // a worker's failed open may still arrive as its "error" event after its request's answer said so:
    // it is handled (dropped), else it would end the process before the start error is printed
    for (const w of workers)
      w.removeAllListeners("error")
        .removeAllListeners("exit")
        .on("error", () => {});
    await Promise.all(workers.map((w) => w.terminate()));
    throw error;
  }
  started = true;
  useIntake(pool, intake, options.dataDir, intakeLeft);
  await startJudging(pool, options);
  return pool;
}
