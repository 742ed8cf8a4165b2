// `hcd replay FILE`: runs a scenario file on the pure engine and writes one JSON line per flip,
// notification and refused command, then {"digest": sha256 of the final state}. The same file gives the
// same bytes on every run: nothing here reads a clock, a random source or the environment.
import { createHash } from "node:crypto";
import type { Outcome } from "../engine/outcome.ts";
import { ok } from "../engine/outcome.ts";
import type { ReplayEvent } from "../engine/replay.ts";
import { replay } from "../engine/replay.ts";
import { reasonOf } from "../http/errors.ts";
import { scenarioOf } from "./scenario-file.ts";

/** Replays a parsed scenario file, handing each output line (no newline) to `write`; a bad file → failure. */
export function replayLines(file: unknown, write: (line: string) => void): Outcome<void> {
  const scenario = scenarioOf(file);
  if (!scenario.ok) return scenario;
  const finalState = replay(scenario.value, (event) => write(JSON.stringify(presentEvent(event))));
  write(JSON.stringify({ digest: createHash("sha256").update(canonicalJson(finalState)).digest("hex") }));
  return ok(undefined);
}

/** Returns an event as its output line's object. */
export function presentEvent(event: ReplayEvent): Record<string, unknown> {
  switch (event.event) {
    case "flip": {
      const { at, from, to, reason } = event.flip;
      return { at: new Date(at).toISOString(), check: event.check, flip: { from, to, reason } };
    }
    case "notification": {
      const { flip, channel, reminder, escalation, failedAgain } = event.entry;
      // a reminder, an escalation step or a failure while down says which; a flip's notification (and a held down notification) does not
      const notification: Record<string, unknown> = { channel: channel.name, kind: channel.kind, status: flip.to };
      if (reminder !== undefined) notification.reminder = reminder;
      if (escalation !== undefined) notification.escalation = escalation;
      if (failedAgain !== undefined) notification.failure = flip.reason;
      return { at: new Date(flip.at).toISOString(), check: event.check, notification };
    }
    case "note":
      return { at: new Date(event.ping.at).toISOString(), check: event.check, ping: { kind: event.ping.kind, note: event.ping.note } };
    case "refused":
      return { at: new Date(event.command.at).toISOString(), command: event.index, refused: reasonOf(event.failure) };
  }
}

/** JSON with every object's keys sorted: the digest depends on the state, not on how it was built. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
    const entries = Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
}
