// The sign-in limit under concurrency across a cluster (two real nodes, one real nats-server): 200 guesses
// at once, half through each node, from one address, check at most 10 passwords, because each takes its
// place in the shared count before its password is checked.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { call, ok } from "../security/real-server.ts";
import { signInUser, statusCounts } from "../security/form-client.ts";
import { withTwoNodes } from "./two-nodes.ts";
import { until } from "../helpers.ts";

const TOKEN = "sign-in-race-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "summer2026!!x-long";

test("200 guesses at once through two nodes check at most 10 passwords", async () => {
  await withTwoNodes("the cluster's sign-in limit under concurrency", { ADMIN_TOKEN: TOKEN }, async (a, b) => {
    await ok(call(a.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "target@corp.example", password: PASSWORD } }));
    await until("the user on node b", async () =>
      (await call(b.url, "GET", "/admin/v1/users", { headers: admin })).text.includes("target@corp.example"),
    );
    const guesses = [...Array.from({ length: 199 }, (_, i) => `wrong-guess-${i}-xxxx`), PASSWORD];
    const answers = await Promise.all(
      guesses.map((password, i) => signInUser(i % 2 === 0 ? a : b, "target@corp.example", password, "127.0.0.50")),
    );
    const counts = statusCounts(answers);
    const checked = (counts[401] ?? 0) + (counts[303] ?? 0);
    assert.ok(checked <= 10, `passwords checked: ${JSON.stringify(counts)}`);
    assert.ok(checked >= 1, `the budget was used: ${JSON.stringify(counts)}`);
    assert.is(counts[429] ?? 0, 200 - checked, JSON.stringify(counts));
    console.log(`200 guesses at once through two nodes: ${JSON.stringify(counts)}`);
  });
});

test.run();
