// The directory's writes (cluster/directory-replica.ts): a partition's owner publishes what a committed change
// did to projects and checks, or reconciles the partition's keys with its state after a takeover; one after
// another, each sent again under the same message id while unanswered, leaving out what the copy holds.
import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamPublishOptions } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { headers } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Changes } from "../engine/changes.ts";
import type { Project } from "../engine/model.ts";
import { checkKey, encodeCheckValue, encodeProject, partitionFilters, projectKey } from "./directory-keys.ts";
import { resendUnanswered } from "./resend.ts";
import { partitionOf } from "./partitions.ts";

/** What publish() takes of a shard's Changes. */
export type DirectoryChanges = Pick<Changes, "projects" | "checks" | "deletedChecks" | "statusOnly" | "stateOnly" | "alertOnly">;

/** A check's route: [uuid, project id, badge key] (Shard.routes() yields these). */
export type CheckRoute = readonly [string, string, string];

/** A check's push token: [uuid, token] (Shard.pushTokens() yields these). */
export type CheckPushToken = readonly [string, string];

const KV_OPERATION = "KV-Operation";
const PUBLISH_CONCURRENCY = 512;

/** What publish() answers for changes that write no key: the caller has nothing to wait for. */
export const NOTHING_PUBLISHED: Promise<number> = Promise.resolve(0);

/** A key's write: its value, or null for a delete. */
export type Write = { readonly key: string; readonly value: Uint8Array | null };

/** The replica's copy as its writes see it: the last revision it applied, whether it holds what a put would write, a wait until it holds the bucket's last. */
export type DirectoryCopy = {
  revision(): number;
  /** True when the copy holds exactly what `write` (a put; projects by id) would write. */
  holds(write: Write, projects: ReadonlyMap<string, Project>): boolean;
  synced(): Promise<number>;
};

export type DirectoryWritesOptions = {
  readonly connection: NatsConnection;
  readonly kv: KV;
  readonly bucket: string;
  readonly partitionCount: number;
  readonly ackTimeoutMs: number;
  readonly retryForMs: number;
};

export class DirectoryWrites {
  readonly #js: JetStreamClient;
  readonly #options: DirectoryWritesOptions;
  readonly #copy: DirectoryCopy;
  /** The last revision this node wrote (its copy holds its own writes once it has applied this far). */
  #written = 0;
  #writing: Promise<unknown> = Promise.resolve();

  constructor(options: DirectoryWritesOptions, copy: DirectoryCopy) {
    this.#options = options;
    this.#js = jetstream(options.connection);
    this.#copy = copy;
  }

  /**
   * Writes what a committed change did to the directory: its projects put, its new or changed checks put
   * (none when the checks changed only in state), its deleted checks deleted. Resolves with the last
   * revision written (0: nothing to write) once every write is acknowledged; rejects when one could not be.
   */
  publish(changes: DirectoryChanges): Promise<number> {
    const writes = new Map<string, Write>(); // by key: the last write of a key wins, deletions after upserts (as the store applies them)
    for (const project of changes.projects) {
      writes.set(projectKey(this.#partition(project.id), project.id), {
        key: projectKey(this.#partition(project.id), project.id),
        value: encodeProject(project),
      });
    }
    const stateOnly = changes.statusOnly === true || changes.stateOnly === true || changes.alertOnly === true;
    if (!stateOnly) {
      for (const check of changes.checks) {
        const key = checkKey(this.#partition(check.projectId), check.projectId, check.uuid);
        writes.set(key, { key, value: encodeCheckValue(check.badgeKey, check.pushToken) });
      }
    }
    for (const { projectId, uuid } of changes.deletedChecks) {
      const key = checkKey(this.#partition(projectId), projectId, uuid);
      writes.set(key, { key, value: null });
    }
    if (writes.size === 0) return NOTHING_PUBLISHED; // a change of a check's state only (a ping): nothing to wait for
    return this.#enqueue(() => this.#write([...writes.values()], changes));
  }

  /**
   * Makes the bucket's keys of `partition` exactly these projects and checks (a new owner's state after its
   * takeover): puts what differs and deletes the keys of projects and checks it no longer holds. Resolves
   * with how many keys were put and deleted, and the last revision written.
   */
  reconcile(
    partition: number,
    projects: readonly Project[],
    checks: Iterable<CheckRoute>,
    pushTokens: Iterable<CheckPushToken> = [],
  ): Promise<{ put: number; deleted: number; revision: number }> {
    return this.#enqueue(async () => {
      await this.#copy.synced(); // the copy now holds the bucket's values: a put it already holds is left out
      const wanted: Write[] = [];
      for (const project of projects) wanted.push({ key: projectKey(partition, project.id), value: encodeProject(project) });
      const tokens = new Map(pushTokens);
      for (const [uuid, projectId, badgeKey] of checks)
        wanted.push({ key: checkKey(partition, projectId, uuid), value: encodeCheckValue(badgeKey, tokens.get(uuid)) });
      const filters = partitionFilters(partition);
      const present = new Set<string>(); // the bucket's live keys of the partition
      for (const filter of [filters.projects, filters.checks]) {
        for await (const key of await this.#options.kv.keys(filter)) present.add(key);
      }
      const byId = new Map(projects.map((p) => [p.id, p]));
      const puts = wanted.filter((write) => !(present.has(write.key) && this.#copy.holds(write, byId)));
      const kept = new Set(wanted.map((write) => write.key));
      const deletes: Write[] = [...present].filter((key) => !kept.has(key)).map((key) => ({ key, value: null }));
      const revision = await this.#send([...puts, ...deletes]);
      return { put: puts.length, deleted: deletes.length, revision };
    });
  }

  /** Resolves once the writes in flight are done (their failures are their callers'). */
  async settled(): Promise<void> {
    await this.#writing.catch(() => {});
  }

  #partition(projectId: string): number {
    return partitionOf(projectId, this.#options.partitionCount);
  }

  #enqueue<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#writing.then(run, run);
    this.#writing = result.catch(() => {});
    return result;
  }

  /** Writes a publish's keys, leaving out puts the copy shows are in the bucket already. */
  async #write(writes: Write[], changes: DirectoryChanges): Promise<number> {
    // the copy is the bucket's state only once it has applied this node's own last write
    const current = this.#copy.revision() >= this.#written;
    const byId = new Map(changes.projects.map((p) => [p.id, p]));
    const needed = writes.filter((write) => !(current && write.value !== null && this.#copy.holds(write, byId)));
    return this.#send(needed);
  }

  /** Sends the writes (pipelined, each sent again while unanswered); resolves with the highest revision written. */
  async #send(writes: readonly Write[]): Promise<number> {
    let revision = 0;
    for (let from = 0; from < writes.length; from += PUBLISH_CONCURRENCY) {
      const acks = await Promise.all(writes.slice(from, from + PUBLISH_CONCURRENCY).map((write) => this.#sendOne(write)));
      for (const seq of acks) revision = Math.max(revision, seq);
    }
    return revision;
  }

  async #sendOne(write: Write): Promise<number> {
    const msgID = randomUUID(); // the same id on every attempt: a resent write the stream already holds is stored once
    const subject = `$KV.${this.#options.bucket}.${write.key}`;
    const options: Partial<JetStreamPublishOptions> = { msgID };
    if (write.value === null) {
      options.headers = headers();
      options.headers.set(KV_OPERATION, "DEL");
    }
    const publish = async (timeout: number) =>
      (await this.#js.publish(subject, write.value ?? new Uint8Array(0), { ...options, timeout })).seq;
    const seq = await resendUnanswered(publish, { timeoutMs: this.#options.ackTimeoutMs, forMs: this.#options.retryForMs });
    this.#written = Math.max(this.#written, seq); // each acknowledged write, even when another of its publish fails
    return seq;
  }
}
