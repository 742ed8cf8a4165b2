// The plan's changes of one project's channels (plan.ts): each file entry is compared with its match here
// through the value the server would store (the server's own parser), so a file exported from hcd plans no change.
import type { ServiceKind } from "../../engine/model.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import { channelInputOf } from "../../http/admin-input.ts";
import { presentChannelValue } from "../../http/present.ts";
import { SERVICE_KIND_MODULES } from "../../notify/kinds/index.ts";
import { call } from "../admin-client.ts";
import type { FileChannel } from "./document.ts";
import { idsOf } from "./live-state.ts";
import type { Change, Ids, ProjectContext } from "./plan-model.ts";
import { dropped, matchEntries, PHASE } from "./plan-model.ts";
import type { ChannelTarget } from "./plan-channel-refs.ts";
import { channelIdAtRun, channelKey, channelTarget, sameSet } from "./plan-channel-refs.ts";
import { channelBody } from "./requests.ts";

const enc = encodeURIComponent;

/** A channel's value as the server would store and show it, or null when the server's parser refuses it. */
function storedValue(kind: string, value: unknown): unknown {
  const parsed = channelInputOf({ kind, name: "", value }, { parse: (k: ServiceKind, v: unknown) => SERVICE_KIND_MODULES[k].parse(v) });
  if (!parsed.ok) return null;
  const form = (SERVICE_KINDS as readonly string[]).includes(kind) ? SERVICE_KIND_MODULES[kind as ServiceKind].form : [];
  return presentChannelValue(parsed.value.value, form);
}

export function channelChanges(context: ProjectContext): Change[] {
  const { file, live, label: projectLabel, ids } = context;
  if (file.channels === undefined) return [];
  const liveChannels = live?.channels ?? [];
  const { matched, left } = matchEntries(
    file.channels,
    liveChannels,
    (c) => c.id,
    (c) => c.id,
    (c) => c.name,
    (c) => c.name,
  );
  for (const [entry, found] of matched) if (found !== null) ids.channels.set(entry, found.id);
  const changes: Change[] = [];
  const membersOf = (entry: FileChannel, where: string) =>
    ((entry.value as { channels?: string[] }).channels ?? [])
      .map((ref) => channelTarget(context, ref, where))
      .filter((t): t is ChannelTarget => t !== null);
  for (const entry of file.channels) {
    const found = matched.get(entry) ?? null;
    const group = entry.kind === "group";
    const label = `channel ${JSON.stringify(entry.name)} (${entry.kind}) in ${projectLabel}`;
    const members = group ? membersOf(entry, label) : [];
    const body = (runIds: Ids) => channelBody(entry, group ? members.map((m) => channelIdAtRun(runIds, m)) : null);
    if (found === null) {
      // made with the file's id when it has one: the next run (here or on the hcd it came from) matches it by id
      const request = (runIds: Ids) => (entry.id === undefined ? body(runIds) : { ...body(runIds), id: entry.id });
      changes.push({
        verb: "create",
        what: "channel",
        label,
        details: entry.needs_settings === true ? ["needs its settings"] : [],
        phase: group ? PHASE.group : PHASE.channel,
        run: async (client, runIds) => {
          const made = (await call(client, "POST", `/admin/v1/projects/${enc(context.projectId())}/channels`, request(runIds))) as {
            id: string;
          };
          runIds.channels.set(entry, made.id);
          return `created ${label} (id ${made.id})`;
        },
      });
      continue;
    }
    if (found.kind !== entry.kind) {
      context.problems.push(
        `${label}: it is a ${found.kind} channel here, and a channel keeps its kind; give the file's entry another name (and --prune the old one)`,
      );
      continue;
    }
    const details: string[] = [];
    if (found.name !== entry.name) details.push(`name ${JSON.stringify(found.name)} → ${JSON.stringify(entry.name)}`);
    if ((found.new_checks ?? true) !== (entry.new_checks ?? true))
      details.push(`new_checks ${found.new_checks ?? true} → ${entry.new_checks ?? true}`);
    if ((found.every_failure ?? false) !== (entry.every_failure ?? false))
      details.push(`every_failure ${found.every_failure ?? false} → ${entry.every_failure ?? false}`);
    // a file that does not know the settings (needs_settings) leaves them as they are here
    const valueDiffers =
      entry.needs_settings === true
        ? false
        : group
          ? !sameSet(
              members.map((m) => channelKey(context, m)),
              idsOf((found.value as { channels?: unknown } | undefined)?.channels),
            )
          : found.needs_settings === true || JSON.stringify(storedValue(entry.kind, entry.value)) !== JSON.stringify(found.value);
    if (valueDiffers) details.push(group ? "members" : "value"); // a value's text is never shown: it may hold a secret
    if (details.length === 0) continue;
    if (entry.needs_settings === true && found.needs_settings === true) {
      context.problems.push(`${label}: it needs its settings here and the file has none: give it a value to rename it`);
      continue;
    }
    // a rename of an entry without settings keeps the value here
    const edit = (runIds: Ids) =>
      entry.needs_settings === true
        ? { name: entry.name, new_checks: entry.new_checks ?? true, every_failure: entry.every_failure ?? false, value: found.value }
        : body(runIds);
    changes.push({
      verb: "update",
      what: "channel",
      label,
      details,
      phase: group ? PHASE.groupUpdate : PHASE.channelUpdate,
      run: async (client, runIds) => {
        await call(client, "PUT", `/admin/v1/projects/${enc(context.projectId())}/channels/${enc(found.id)}`, edit(runIds));
        return `updated ${label}`;
      },
    });
  }
  for (const channel of left)
    changes.push(
      ...dropped(
        context,
        "channel",
        `channel ${JSON.stringify(channel.name)} (${channel.kind})`,
        channel.kind === "group" ? PHASE.groupDelete : PHASE.channelDelete,
        `channels/${enc(channel.id)}`,
      ),
    );
  return changes;
}
