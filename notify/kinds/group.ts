// Group: one channel that fans a notification out to other channels of its project (reference
// hc/integrations/group). The deliverer sends a group's entry to each member as to that channel; a
// group never sends to a group, so groups cannot loop.
import type { NoticeChannel, OutboxEntry } from "../../engine/changes.ts";
import { noticeChannelOf } from "../../engine/changes.ts";
import type { Channel } from "../../engine/model.ts";
import { invalid, ok } from "../../engine/outcome.ts";
import type { ServiceKindModule } from "./kind.ts";
import { valueText } from "../../lib/value-text.ts";
import { isObject } from "./kind.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_MEMBERS = 50;

/** The ids a group's value names. */
export function memberIds(fields: Readonly<Record<string, unknown>>): string[] {
  return valueText(fields.channels)
    .split(",")
    .filter((id) => id !== "");
}

/** The channels of `projectChannels` a group sends to: those it names, never a group (no loops). */
export function groupMembers(group: NoticeChannel, projectChannels: readonly Channel[]): Channel[] {
  const value = group.value;
  if (!("fields" in value)) return [];
  const ids = new Set(memberIds(value.fields));
  return projectChannels.filter((channel) => ids.has(channel.id) && channel.kind !== "group" && channel.id !== group.id);
}

/** The group's entry as it goes to one member: the same message, the member's channel. */
export function memberEntry(entry: OutboxEntry, member: Channel): OutboxEntry {
  return { ...entry, channel: noticeChannelOf(member) };
}

export const group: ServiceKindModule = {
  help: '{"channels": ["<channel id>", ...]}: other integrations of this project (not groups) that each get the notification',
  form: [
    { name: "channels", label: "Channel ids", input: "list", required: true, hint: "comma-separated ids of this project's integrations" },
  ],
  secretFields: [],
  parse(value) {
    const list = isObject(value) ? value.channels : value;
    const ids =
      typeof list === "string"
        ? list
            .split(",")
            .map((id) => id.trim())
            .filter((id) => id !== "")
        : list;
    if (
      !Array.isArray(ids) ||
      ids.length === 0 ||
      ids.length > MAX_MEMBERS ||
      !ids.every((id) => typeof id === "string" && UUID.test(id))
    ) {
      return invalid("value.channels", `must be a list of 1 to ${MAX_MEMBERS} channel ids`);
    }
    return ok({ channels: [...new Set(ids as string[])].join(",") });
  },
  render: () => [], // the deliverer sends a group's entry to its members (notify/deliverer.ts)
};
