// A TCP relay between an hcd node and one nats-server that a fault can cut (every connection dropped, new
// ones refused) and restore, or slow (every chunk held a while, in both directions, in order).
import { createServer, connect as tcpConnect } from "node:net";
import type { Server, Socket } from "node:net";
import { Transform } from "node:stream";

export type FaultRelay = {
  /** The relay's address as NATS_URL takes it. */
  readonly url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Holds every chunk `delayMs` from now on (0: passes them at once). */
  slow(delayMs: number): void;
  close(): void;
};

/** Starts a relay on a free loopback port to `target`. */
export async function faultRelay(target: { host: string; port: number }): Promise<FaultRelay> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let delayMs = 0;
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const found = (probe.address() as { port: number }).port;
      probe.close(() => resolve(found));
    });
  });
  // a Transform passes its chunks one at a time: holding each keeps the byte order of the stream
  const delayed = () =>
    new Transform({
      transform(chunk, _encoding, done) {
        if (delayMs === 0) done(null, chunk);
        else setTimeout(() => done(null, chunk), delayMs);
      },
    });
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = tcpConnect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.once("close", () => sockets.delete(s));
          s.on("error", () => s.destroy());
        }
        // either side closing ends the other: a relay never keeps half a connection open
        client.once("close", () => upstream.destroy());
        upstream.once("close", () => client.destroy());
        client.pipe(delayed()).pipe(upstream);
        upstream.pipe(delayed()).pipe(client);
      });
      server.listen(port, "127.0.0.1", () => resolve());
    });
  await open();
  return {
    url: `nats://127.0.0.1:${port}`,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server!.close(() => resolve());
      }),
    restore: open,
    slow: (ms) => {
      delayMs = ms;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server?.close();
    },
  };
}
