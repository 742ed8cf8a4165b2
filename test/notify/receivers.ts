// Real local receivers for notification tests: an HTTP server that records every request and an
// SMTP server (smtp-server + mailparser) that records every message.
import { createServer } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import type { ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export type Captured = { method: string; path: string; headers: IncomingHttpHeaders; body: string };
export type Answer = { status: number; body?: string; headers?: Record<string, string> } | "hang";

/** A started HTTP receiver on 127.0.0.1; `answer` decides each reply ("hang" = never reply), at once or when its promise resolves. */
export async function httpReceiver(
  answer: (request: Captured, index: number) => Answer | Promise<Answer> = () => ({ status: 200 }),
  host = "127.0.0.1",
) {
  const requests: Captured[] = [];
  const waiters: ((request: Captured) => void)[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const captured = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(captured);
      const reply = answer(captured, requests.length - 1);
      waiters.splice(0).forEach((wake) => wake(captured));
      const send = (answered: Answer) => {
        if (answered === "hang") return;
        res.writeHead(answered.status, answered.headers ?? {});
        res.end(answered.body ?? "");
      };
      if (reply instanceof Promise) void reply.then(send);
      else send(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    /** Resolves with the next request this receiver gets. */
    nextRequest: () => new Promise<Captured>((resolve) => waiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A started SMTP receiver on 127.0.0.1 without auth or STARTTLS; `mails` are parsed messages. */
export async function smtpReceiver() {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          mails.push(mail);
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
