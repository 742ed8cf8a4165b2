// The setup the durable-write benches share: hcd (a real process, DURABILITY=flush) holding 1,000 checks
// in 10 projects, the ping URLs of every check in a fixed shuffled order, and the 35-byte body each ping
// POSTs (a typical cron job's one-line report).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePaths } from "./load.ts";
import { createCheck, createProject, mapConcurrently, shuffled, startHcd } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";

export const PING_BODY = "backup ok: 12045 files, 0 errors.\r\n";
if (Buffer.byteLength(PING_BODY) !== 35) throw new Error("the bench's ping body must be 35 bytes");

/** hcd with its checks; `close` stops it and removes its files. */
export type PingFixture = {
  readonly hcd: ServerProcess;
  readonly paths: readonly string[];
  readonly pathsFile: string;
  readonly checks: number;
  /** The server's DATA_DIR. */
  readonly dataDir: string;
  close(): Promise<void>;
};

/** Starts hcd in a fresh DATA_DIR and creates `projects` x `perProject` checks through /api/v3. */
export async function startPingFixture(
  options: { projects?: number; perProject?: number; nodeArgs?: string[] } = {},
): Promise<PingFixture> {
  const projects = options.projects ?? 10,
    perProject = options.perProject ?? 100;
  const dataDir = mkdtempSync(join(tmpdir(), "hcd-bench-durable-"));
  let hcd: ServerProcess | null = null;
  try {
    const server = await startHcd({ dataDir, nodeArgs: options.nodeArgs ?? [] });
    hcd = server;
    const keys = await mapConcurrently(
      Array.from({ length: projects }, (_, i) => i),
      4,
      (i) => createProject(server.url, `bench-${i}`, perProject * 2),
    );
    const uuids = await mapConcurrently(
      Array.from({ length: projects * perProject }, (_, i) => keys[i % projects]),
      16,
      (project, i) => createCheck(server.url, project.apiKey, { name: `check ${i}`, timeout: 86_400, grace: 3_600 }),
    );
    const paths = shuffled(uuids.map((uuid) => `/ping/${uuid}`));
    const file = writePaths(paths);
    return {
      hcd: server,
      paths,
      pathsFile: file.file,
      checks: uuids.length,
      dataDir,
      close: async () => {
        await server.stop();
        file.remove();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await hcd?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
