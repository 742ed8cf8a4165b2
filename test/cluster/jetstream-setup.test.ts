// createIdempotently sends a create again only when it went unanswered (TIMEOUT, 503), and gives up after
// the attempts it was given; any other error (a refused configuration) is thrown at once.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createIdempotently } from "../../cluster/jetstream-setup.ts";

const natsError = (code: string) => Object.assign(new Error(code), { code });

test("a create that times out is sent again until it is answered", async () => {
  let calls = 0;
  const result = await createIdempotently(async () => {
    calls += 1;
    if (calls < 3) throw natsError(calls === 1 ? "TIMEOUT" : "503");
    return "created";
  });
  assert.equal([result, calls], ["created", 3]);
});

test("it gives up after the attempts it was given, with the last error", async () => {
  let calls = 0;
  const error = await createIdempotently(async () => { calls += 1; throw natsError("TIMEOUT"); }, 4).catch((e: Error) => e);
  assert.equal([(error as Error).message, calls], ["TIMEOUT", 4]);
});

test("any other error is thrown at once", async () => {
  let calls = 0;
  const refused = Object.assign(new Error("stream name already in use with a different configuration"), { code: "400" });
  const error = await createIdempotently(async () => { calls += 1; throw refused; }).catch((e: Error) => e);
  assert.equal([error, calls], [refused, 1]);
});

test.run();
