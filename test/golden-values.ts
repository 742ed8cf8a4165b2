// Fixed values for the golden tests of the stored and wire formats (test/*/golden-*.test.ts): every
// field written out here, so that the bytes those tests expect change only when a format does.
import type { IntakeEntry } from "../persistence/intake.ts";
import type { OutboxEntry, PingWrite } from "../engine/changes.ts";
import type { Channel, Check, Flip, PingRecord, Project } from "../engine/model.ts";
import { checkWith } from "../engine/model.ts";
import type { PingCommand } from "../engine/commands.ts";

export const PROJECT_ID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";
export const CHECK_UUID = "c0ffee00-1234-4567-89ab-cdef01234567";
export const CHANNEL_ID = "0a0b0c0d-0e0f-4a1b-8c2d-3e4f5a6b7c8d";
export const AT = 1_767_225_600_000; // 2026-01-01T00:00:00Z

export const PROJECT: Project = {
  id: PROJECT_ID,
  name: "Backups",
  apiKey: "rw-key-0123456789abcdef01234567",
  apiKeyReadonly: "ro-key-0123456789abcdef01234567",
  pingKey: "pingkey-0123456789abcdef",
  badgeKey: "badge-0123",
  checkLimit: 20,
  pingLogLimit: 100,
  pingBodyLimit: 10_000,
  createdAt: AT,
};

export const CHANNEL: Channel = {
  id: CHANNEL_ID,
  projectId: PROJECT_ID,
  name: "ops",
  kind: "email",
  value: { kind: "email", address: "ops@example.com" },
  createdAt: AT,
};

/** A check as the engine makes every check (engine/model.ts checkWith: one field order, alerting fields present). */
export const CHECK: Check = checkWith({
  uuid: CHECK_UUID,
  projectId: PROJECT_ID,
  badgeKey: "b4d6e000-0000-4000-8000-000000000001",
  name: "nightly",
  slug: "nightly",
  tags: "prod db",
  desc: "",
  kind: "simple",
  timeoutMs: 86_400_000,
  graceMs: 3_600_000,
  schedule: "* * * * *",
  tz: "UTC",
  manualResume: false,
  methods: "",
  startKw: "",
  successKw: "",
  failureKw: "",
  filterSubject: false,
  filterBody: false,
  filterHttpBody: false,
  filterDefaultFail: false,
  channels: [CHANNEL_ID],
  createdAt: AT,
  status: "up",
  nPings: 1,
  nFlips: 1,
  lastPingAt: AT + 60_000,
  lastStartAt: null,
  lastStartRid: null,
  lastDurationMs: null,
});

export const PING_RECORD: PingRecord = {
  n: 1,
  at: AT + 60_000,
  kind: "success",
  scheme: "https",
  remoteAddr: "192.0.2.7",
  method: "POST",
  ua: "curl/8.5.0",
  rid: "0badc0de-0000-4000-8000-000000000002",
  exitStatus: 0,
  bodySize: 2,
};

export const BODY = new Uint8Array([0x6f, 0x6b]); // "ok"

export const PING_WRITE: PingWrite = { projectId: PROJECT_ID, checkUuid: CHECK_UUID, record: PING_RECORD, body: BODY, keep: 100 };

export const FLIP: Flip = { checkUuid: CHECK_UUID, n: 1, at: AT + 60_000, from: "new", to: "up", reason: "", notify: false };

/** Down a day and an hour after the ping (timeout plus grace). */
export const DOWN_FLIP: Flip = { checkUuid: CHECK_UUID, n: 2, at: AT + 90_060_000, from: "up", to: "down", reason: "", notify: true };

export const OUTBOX_ENTRY: OutboxEntry = {
  id: `${String(DOWN_FLIP.at).padStart(15, "0")}-${CHECK_UUID}-2-${CHANNEL_ID}`,
  projectId: PROJECT_ID,
  check: {
    uuid: CHECK_UUID,
    name: "nightly",
    slug: "nightly",
    tags: "prod db",
    desc: "",
    kind: "simple",
    timeoutMs: 86_400_000,
    schedule: "* * * * *",
    tz: "UTC",
    nPings: 1,
    createdAt: AT,
  },
  flip: DOWN_FLIP,
  channel: { id: CHANNEL_ID, name: "ops", kind: "email", value: { kind: "email", address: "ops@example.com" } },
  lastPing: PING_RECORD,
  lastPingBody: BODY,
  projectName: "Backups",
  downSinceAt: null,
  attempts: 0,
  nextAttemptAt: DOWN_FLIP.at,
  lastError: null,
};

export const PING_COMMAND: PingCommand = {
  target: { uuid: CHECK_UUID },
  signal: "success",
  exitStatus: 0,
  method: "POST",
  scheme: "https",
  remoteAddr: "192.0.2.7",
  ua: "curl/8.5.0",
  rid: "0badc0de-0000-4000-8000-000000000002",
  body: BODY,
  at: AT + 60_000,
};

export const INTAKE_ENTRY: IntakeEntry = { shard: "1/2", projectId: PROJECT_ID, command: PING_COMMAND };

/** Returns the bytes of hex text (whitespace ignored). */
export function fromHex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.replace(/\s+/g, ""), "hex"));
}

/** Returns bytes as hex, for a readable failure message. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}
