// Uptime Kuma push tokens through a cluster (one nats-server, two real hcd nodes): a token given through
// one node routes pushes at the other once the change is answered (the replicated directory carries it), a
// token moved or taken away through one node stops routing at the other once its copy of the directory has
// the change, and a token is refused as taken through either node.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { call, ok } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { withTwoNodes } from "./two-nodes.ts";
import { until } from "../helpers.ts";
import { adminCall, SERVER_ENV } from "../ops/as-code-rig.ts";

type Json = Record<string, unknown>;
const NOT_FOUND = { ok: false, msg: "Monitor not found or not active." };

async function push(node: RealServer, token: string): Promise<unknown> {
  return (await fetch(`${node.url}/api/push/${token}?status=up&msg=OK`)).json();
}

test("a token given, moved and taken away through one node routes, or stops, at the other", () =>
  withTwoNodes("push tokens through a cluster", SERVER_ENV, async (a, b) => {
    for (let i = 0; i < 4; i++) {
      // several projects: their partitions are spread over the two nodes
      const [asked, other] = i % 2 === 0 ? [a, b] : [b, a];
      const project = await adminCall<{ api_key: string }>(asked, "POST", "/admin/v1/projects", { name: `p${i}` });
      const token = `ClusterToken${i}ClusterToken`;
      const made = await ok<Json>(
        call(asked.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "pushed", push_token: token } }),
      );
      assert.equal(await push(other, token), { ok: true }, `project ${i}: the other node routes the new token`);
      const taken = await call(other.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "thief", push_token: token } });
      assert.is(taken.status, 400, "taken, through the other node too");
      const moved = `${token}Moved`;
      await ok(call(other.url, "POST", `/api/v3/checks/${made.uuid as string}`, { key: project.api_key, body: { push_token: moved } }));
      // a hit is not checked again: the other node's copy of the directory follows the bucket within its replication delay
      await until(
        "the old token names nothing at the first node",
        async () => JSON.stringify(await push(asked, token)) === JSON.stringify(NOT_FOUND),
        30_000,
      );
      assert.equal(await push(asked, moved), { ok: true });
      await ok(call(asked.url, "POST", `/api/v3/checks/${made.uuid as string}`, { key: project.api_key, body: { push_token: null } }));
      await until(
        "a token taken away names nothing at the other node",
        async () => JSON.stringify(await push(other, moved)) === JSON.stringify(NOT_FOUND),
        30_000,
      );
      const check = await ok<Json>(call(other.url, "GET", `/api/v3/checks/${made.uuid as string}`, { key: project.api_key }));
      assert.ok(Number(check.n_pings) >= 2, "both pushes answered {ok: true} are in its log"); // (a push the lagging copy still routed: one more)
    }
  }));

test.run();
