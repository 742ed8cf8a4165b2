// A shard's pings: the check a ping reaches (by uuid, or by slug, auto-provisioned), classified, stepped
// and logged with its body cut to the project's limit; an imported check's past pings logged as they were.
import type { PingWrite } from "./changes.ts";
import { classify, classifyEmail } from "./classify.ts";
import type { Check, PingRecord } from "./model.ts";
import { checkWith, LIMITS } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { fail, invalid, ok } from "./outcome.ts";
import type { ImportedPing } from "./check-import.ts";
import type { PingCommand, ShardPingResult } from "./commands.ts";
import type { ShardCore } from "./shard-core.ts";
import { onPing } from "./transition.ts";

/** Applies one ping: finds (or creates) the check, classifies, steps and logs it. */
export function ping(shard: ShardCore, command: PingCommand): Outcome<ShardPingResult> {
  const target = pingTarget(shard, command);
  if (!target.ok) return target;
  const created = target.value.created;
  const check = shard.catchUp(target.value.check, command.at);
  const project = shard.state.project(check.projectId);
  if (!project) return fail({ code: "not_found", what: "project" });
  const kind = command.email
    ? classifyEmail(check, command.email)
    : classify(check, { signal: command.signal, exitStatus: command.exitStatus, method: command.method, body: command.body ?? "" });
  const step = onPing(check, kind, command.rid, command.at);
  const stored = storedBody(command.body, project.pingBodyLimit);
  const note = step.note ?? null;
  const plain: PingRecord = {
    n: step.check.nPings,
    at: command.at,
    kind,
    scheme: command.scheme,
    remoteAddr: command.remoteAddr,
    method: command.method,
    ua: command.ua.slice(0, LIMITS.uaMaxChars),
    rid: command.rid,
    exitStatus: command.exitStatus,
    bodySize: stored?.length ?? 0,
  };
  const record: PingRecord = note === null ? plain : { ...plain, note }; // a note is rare: no "note" key on most records
  const write: PingWrite = { projectId: check.projectId, checkUuid: check.uuid, record, body: stored, keep: project.pingLogLimit };
  shard.changes.gathered.pings.push(write);
  const after = shard.apply(step, { record, body: write.body });
  // a failure that found the check down already: the integrations that hear of every failure hear of it
  if (step.failure != null && step.flips.length === 0 && after.status === "down")
    shard.failedAgain(after, step, { record, body: write.body });
  return ok({ checkUuid: check.uuid, created, badgeKey: check.badgeKey });
}

/** Logs past pings of an imported check as they were numbered (at most its n_pings), bodies cut to the project's limit; returns how many. */
export function importPings(shard: ShardCore, projectId: string, uuid: string, pings: readonly ImportedPing[]): Outcome<number> {
  const found = shard.check(projectId, uuid);
  const project = shard.state.project(projectId);
  if (!found.ok || project === undefined) return found.ok ? fail({ code: "not_found", what: "project" }) : found;
  const beyond = pings.find((ping) => ping.record.n < 1 || ping.record.n > found.value.nPings);
  if (beyond !== undefined)
    return invalid("pings", `has ping ${beyond.record.n}, outside 1 to the check's n_pings (${found.value.nPings})`);
  for (const { record, body } of pings) {
    const stored = storedBody(body, project.pingBodyLimit);
    shard.changes.gathered.pings.push({
      projectId,
      checkUuid: uuid,
      record: { ...record, bodySize: stored?.length ?? 0 },
      body: stored,
      keep: project.pingLogLimit,
    });
  }
  return ok(pings.length);
}

/** The check a ping reaches: by uuid, or by the project's ping key and slug (created when asked, within twice the check limit). */
function pingTarget(shard: ShardCore, command: PingCommand): Outcome<{ check: Check; created: boolean }> {
  const target = command.target;
  if ("uuid" in target) {
    const check = shard.state.check(target.uuid);
    return check ? ok({ check, created: false }) : fail({ code: "not_found", what: "check" });
  }
  const project = shard.state.projectByPingKey(target.pingKey);
  if (!project) return fail({ code: "not_found", what: "check" });
  const matches = shard.state.listChecks(project.id, { slug: target.slug, tags: [] });
  if (matches.length > 1) return fail({ code: "ambiguous_slug" });
  if (matches.length === 1) return ok({ check: matches[0], created: false });
  // Auto-provisioning may go over the check limit up to twice (reference).
  if (!target.create || shard.state.checkCountOf(project.id) >= 2 * project.checkLimit) {
    return fail({ code: "not_found", what: "check" });
  }
  const allChannels = shard.state
    .channels(project.id)
    .filter((c) => c.newChecks !== false)
    .map((c) => c.id)
    .sort(); // the reference: every integration; here those "added to new checks"
  const check = shard.store(
    checkWith(shard.newCheck(project.id, command.at), { name: target.slug, slug: target.slug, channels: allChannels }),
  );
  return ok({ check, created: true });
}

/** Returns the part of a ping body the log keeps: the first `limitBytes` bytes (a copy when cut), or null for none. */
function storedBody(body: Uint8Array | null, limitBytes: number): Uint8Array | null {
  if (body === null || body.length === 0 || limitBytes <= 0) return null;
  return body.length > limitBytes ? body.slice(0, limitBytes) : body;
}
