// The narrow shape of a partition's command log, shared by the single-node file log and the JetStream
// stream of cluster mode; its one home is persistence/command-log.ts.
export type { CommandLog, LogRecord } from "../persistence/command-log.ts";
