// `hcd simulate` through a running server (real HTTP over loopback) prints the simulate endpoint's JSON.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SECOND } from "../../engine/model.ts";
import { runCli } from "../../app/cli.ts";
import { served, T0, withApi } from "./harness.ts";

/** Runs the CLI; returns its exit status, the JSON it printed on stdout and what it wrote to stderr. */
async function cli(argv: string[], env: Record<string, string>): Promise<{ status: number; json: unknown; stderr: string }> {
  const printed: string[] = [];
  const errors: string[] = [];
  const { log, error } = console;
  console.log = (text: string) => printed.push(text);
  console.error = (text: string) => errors.push(text);
  try {
    const status = await runCli(argv, env);
    return { status, json: printed.length === 0 ? null : JSON.parse(printed.join("\n")), stderr: errors.join("\n") };
  } finally {
    Object.assign(console, { log, error });
  }
}

const iso = (offsetSeconds: number) => new Date(T0 + offsetSeconds * SECOND).toISOString().slice(0, 19) + "+00:00";

test("hcd simulate prints the flips, down count and downtime; bad flags are the server's 400s", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "hourly", timeout: 3600, grace: 60 })).uuid as string;
    for (const offset of [0, 3500, 7000]) {
      api.clock.advance(T0 + offset * SECOND - api.clock.now());
      await api.ping(uuid);
    }
    await served(api, async (url) => {
      const printed = await cli(["simulate", "--check", uuid, "--grace", "600", "--timeout", "1800", "--url", url], {
        HCD_API_KEY: api.project.apiKeyReadonly,
      });
      assert.equal(printed, {
        status: 0,
        stderr: "",
        json: {
          flips: [
            { timestamp: iso(0), up: 1 },
            { timestamp: iso(2400), up: 0 },
            { timestamp: iso(3500), up: 1 },
            { timestamp: iso(5900), up: 0 },
            { timestamp: iso(7000), up: 1 },
          ],
          down_count: 2,
          downtime_seconds: 2200,
          notifications: { down: 2, up: 2, reminders: 0, held: 0, escalations: 0 }, // the first up (of a new check) is not notified
        },
      });
      const since = await cli(
        [
          "simulate",
          "--check",
          uuid,
          "--grace",
          "600",
          "--timeout",
          "1800",
          "--since",
          iso(3000).slice(0, 19),
          "--url",
          url,
          `--key=${api.project.apiKey}`,
        ],
        {},
      ); // keys are base64url: one may start with "-", which only --key=VALUE passes
      assert.equal([since.status, (since.json as { down_count: number } | null)?.down_count], [0, 1], since.stderr);
      const bad = await cli(["simulate", "--check", uuid, "--timeout", "soon", "--url", url, `--key=${api.project.apiKey}`], {});
      assert.equal([bad.status, bad.json], [1, { error: "json validation error: timeout is not a number" }]);
      const usage = await cli(["simulate", "--check", uuid, "--url", url], {});
      assert.is(usage.status, 2);
      assert.match(usage.stderr, /simulate needs --check, --url \(or HCD_URL\) and --key \(or HCD_API_KEY\)/);
    });
  }));

test.run();
