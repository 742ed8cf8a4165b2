// retriedWhileSettling sends a create again only when it went unanswered (a timeout, no responders) or its
// stream was not found (another node creating it at that moment), and
// gives up after the attempts it was given; any other error (a refused configuration) is thrown at once.
// The errors are the client's own classes, as it throws them (test/cluster/nats-errors.test.ts provokes
// each on a real server).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { NoRespondersError, RequestError, TimeoutError } from "@nats-io/nats-core";
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import { retriedWhileSettling } from "../../cluster/jetstream-setup.ts";

const noResponders = () => new RequestError("no responders", { cause: new NoRespondersError("$JS.API.STREAM.CREATE.S") });

test("a create that times out is sent again until it is answered", async () => {
  let calls = 0;
  const result = await retriedWhileSettling(async () => {
    calls += 1;
    if (calls < 3) throw calls === 1 ? new TimeoutError() : noResponders();
    return "created";
  });
  assert.equal([result, calls], ["created", 3]);
});

test("a create whose stream is not found (another node creating it meanwhile) is sent again", async () => {
  let calls = 0;
  const result = await retriedWhileSettling(async () => {
    calls += 1;
    if (calls === 1)
      throw new JetStreamApiError({ code: 404, err_code: JetStreamApiCodes.StreamNotFound, description: "stream not found" });
    return "opened";
  });
  assert.equal([result, calls], ["opened", 2]);
});

test("it gives up after the attempts it was given, with the last error", async () => {
  let calls = 0;
  const error = await retriedWhileSettling(async () => {
    calls += 1;
    throw new TimeoutError();
  }, 4).catch((e: Error) => e);
  assert.equal([error.name, calls], ["TimeoutError", 4]);
});

test("any other error is thrown at once", async () => {
  let calls = 0;
  const refused = Object.assign(new Error("stream name already in use with a different configuration"), { code: "400" });
  const error = await retriedWhileSettling(async () => {
    calls += 1;
    throw refused;
  }).catch((e: Error) => e);
  assert.equal([error, calls], [refused, 1]);
});

test.run();
