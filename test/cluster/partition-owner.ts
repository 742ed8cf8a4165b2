// A partition served in a test: its host over a real replica on one connection, taken over; projects and
// checks created through it.
import * as assert from "uvu/assert";
import type { CheckSpec, Project } from "../../engine/model.ts";
import { PartitionHost } from "../../cluster/partition-host.ts";
import type { PartitionHostDeps } from "../../cluster/partition-host.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import type { NatsConnection } from "@nats-io/nats-core";
import { project } from "../helpers.ts";
import { SECOND, T0 } from "./held-appends.ts";

export type TestOwner = { readonly host: PartitionHost; readonly replica: PartitionReplica };

/** `partition` served on `nc` by a host with `deps`, its replica taken over at `at`. */
export async function partitionOwner(
  nc: NatsConnection,
  partition: number,
  deps: Omit<PartitionHostDeps, "replica">,
  at = T0,
): Promise<TestOwner> {
  let replica: PartitionReplica | null = null;
  const host = new PartitionHost(partition, { ...deps, replica: () => (replica?.state === "owner" ? replica : null) });
  replica = await PartitionReplica.open({ connection: nc, partition, replicas: 1, ...host.replicaOptions() });
  await replica.takeOver(at);
  return { host, replica };
}

/** A new project, `fields` over the defaults. */
export async function newProject(host: PartitionHost, fields: Partial<Project> = {}): Promise<Project> {
  const owner = project({ createdAt: T0, ...fields });
  await host.apply({ kind: "createProject", project: owner, at: T0 });
  return owner;
}

/** A new check in `owner` (an hour's timeout unless `spec` says otherwise); its uuid. */
export async function newCheck(host: PartitionHost, owner: Project, spec: Partial<CheckSpec> = {}): Promise<string> {
  const created = await host.apply({
    kind: "createCheck",
    projectId: owner.id,
    spec: { name: "c", timeoutMs: 3_600 * SECOND, graceMs: 60 * SECOND, ...spec },
    unique: [],
    at: T0,
  });
  assert.ok(created.ok);
  return created.value.check.uuid;
}
