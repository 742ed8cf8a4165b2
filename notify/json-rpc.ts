// The only notify code that talks JSON-RPC over a stream socket (signal-cli's daemon): one request line
// sent, the reply with its id read back within a deadline. Results are values; nothing here throws.
import { connect } from "node:net";
import type { JsonRpcCall } from "./delivery.ts";
import type { SendResult } from "./delivery.ts";

const MAX_REPLY_BYTES = 1024 * 1024;

/**
 * Sends the call's line to its socket (a UNIX socket path, or host:port as the reference takes it),
 * closes the sending side and reads reply lines until the one with the call's id: ok without an error;
 * an error reply is a failure with status 0 and the reply line as its body, for the kind to read.
 */
export function sendJsonRpc(call: JsonRpcCall, timeoutMs: number): Promise<SendResult> {
  return new Promise((resolve) => {
    const failed = (error: string): SendResult => ({ ok: false, error, permanent: false, status: null, responseBody: "" });
    const tcp = /^[^/]+:\d+$/.exec(call.socket) !== null;
    const socket = tcp
      ? connect({
          host: call.socket.slice(0, call.socket.lastIndexOf(":")),
          port: Number(call.socket.slice(call.socket.lastIndexOf(":") + 1)),
        })
      : connect({ path: call.socket });
    let buffered = "";
    let done = false;
    const finish = (result: SendResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish(failed("signal-cli call timed out")), timeoutMs);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.end(`${call.line}\n`)); // one request, then the sending side is closed
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      if (buffered.length > MAX_REPLY_BYTES) return finish(failed("signal-cli call failed (reply too long)"));
      let newline: number;
      while (!done && (newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        let reply: unknown;
        try {
          reply = JSON.parse(line);
        } catch {
          return finish(failed("signal-cli call failed (unexpected response)"));
        }
        if (typeof reply !== "object" || reply === null || Array.isArray(reply))
          return finish(failed("signal-cli call failed (unexpected response)"));
        if ((reply as { id?: unknown }).id !== call.id) continue; // a notification or another call's reply
        const error = (reply as { error?: unknown }).error;
        if (error === undefined || error === null) return finish({ ok: true, status: null });
        return finish({ ok: false, error: "signal-cli call failed", permanent: false, status: 0, responseBody: line });
      }
    });
    socket.on("end", () => finish(failed("signal-cli call failed (unexpected response)")));
    socket.on("error", (error: Error) => finish(failed(`signal-cli call failed (${error.message})`)));
  });
}
