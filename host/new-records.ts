// The records the pool makes from admin input: a project with new random keys (unless brought over whole,
// `kept`), a channel, a maintenance window; ids and keys from node:crypto's CSPRNG.
import { randomBytes, randomUUID } from "node:crypto";
import type { Channel, MaintenanceWindow, Millis, Project } from "../engine/model.ts";
import type { ChannelInput, MaintenanceInput, ProjectInput } from "./pool-api.ts";

/** A new project made at `at`: its keys new random ones, or those `input.kept` brings over. */
export function newProject(input: ProjectInput, at: Millis): Project {
  const kept = input.kept ?? {};
  return {
    id: kept.id ?? randomUUID(),
    name: input.name,
    apiKey: kept.apiKey ?? secret(24),
    apiKeyReadonly: kept.apiKeyReadonly ?? secret(24),
    pingKey: kept.pingKey ?? secret(16),
    badgeKey: kept.badgeKey ?? randomUUID(),
    checkLimit: input.checkLimit,
    pingLogLimit: input.pingLogLimit,
    pingBodyLimit: input.pingBodyLimit,
    createdAt: at,
    ...(kept.hashedApiKeys === undefined ? {} : { hashedApiKeys: kept.hashedApiKeys }),
  };
}

/** A new channel of the project made at `at` (its id given, or a new one); flags only when they differ from the default. */
export function newChannel(projectId: string, input: ChannelInput, at: Millis): Channel {
  return {
    id: input.id ?? randomUUID(),
    projectId,
    name: input.name,
    kind: input.kind,
    value: input.value,
    createdAt: at,
    ...(input.needsSettings === true ? { needsSettings: true } : {}),
    ...(input.newChecks === false ? { newChecks: false } : {}),
    ...(input.everyFailure === true ? { everyFailure: true } : {}),
  };
}

/** A new maintenance window made at `at`. */
export function newMaintenanceWindow(input: MaintenanceInput, at: Millis): MaintenanceWindow {
  return { id: randomUUID(), ...input, createdAt: at };
}

/** Returns a random URL-safe secret of `bytes` random bytes (CSPRNG). */
function secret(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}
