// Shared by the real-process tests of notifications: a webhook channel whose down and up requests go to
// a local receiver, and a wait for the receiver's n-th request.
import type { Captured } from "../notify/receivers.ts";
import type { RealServer } from "../security/real-server.ts";
import { addChannel } from "../security/real-server.ts";

/** Adds a webhook channel sending "POST <receiver>/down/<name>" and "POST <receiver>/up/<name>". */
export function webhookTo(server: RealServer, token: string, projectId: string, receiverUrl: string) {
  return addChannel(server, token, projectId, {
    kind: "webhook",
    name: "hook",
    value: {
      method_down: "POST",
      url_down: `${receiverUrl}/down/$NAME`,
      body_down: "$NAME is $STATUS",
      headers_down: {},
      method_up: "POST",
      url_up: `${receiverUrl}/up/$NAME`,
      body_up: "$NAME is $STATUS",
      headers_up: {},
    },
  });
}

/** Resolves with the requests once there are `count`; fails after `ms` of real time, naming what came. */
export async function requestsUntil(requests: Captured[], count: number, ms: number): Promise<Captured[]> {
  const started = Date.now();
  while (requests.length < count) {
    if (Date.now() - started > ms)
      throw new Error(`waited ${ms} ms for ${count} requests, have ${JSON.stringify(requests.map((r) => r.path))}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return requests;
}
