// How the Shard finds a ping's check: by uuid, or by the project's ping key and a slug, creating the
// check on demand (auto-provisioning, up to twice the project's check limit, as the reference does).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { nthId, pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { channel } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);

/** A project "p" (ping key "pk-p", check limit 2) with channels added as "ch-b" then "ch-a", and one check "backup". */
function setUp(): Shard {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p", { checkLimit: 2 }), T0);
  shard.addChannel(channel({ id: "ch-b", projectId: "p", name: "b" }), T0);
  shard.addChannel(channel({ id: "ch-a", projectId: "p", name: "a" }), T0);
  const made = shard.createCheck("p", { name: "backup", slug: "backup", timeoutMs: HOUR, graceMs: MINUTE }, [], T0);
  if (!made.ok) throw new Error(JSON.stringify(made.failure));
  shard.takeChanges();
  return shard;
}
const bySlug = (slug: string, create: boolean, pingKey = "pk-p") => ({ pingKey, slug, create });

test("a slug names the project's check with that slug; no new check is made for it", () => {
  const shard = setUp();
  const pinged = shard.ping(pingOf(bySlug("backup", true), T0 + MINUTE));
  assert.equal(pinged.ok && pinged.value, { checkUuid: nthId(1), created: false, badgeKey: nthId(2) });
  assert.is(shard.checkCount, 1);
  const check = shard.getCheck("p", nthId(1));
  assert.is(check.ok && check.value.nPings, 1);
  assert.is(check.ok && check.value.status, "up");
});

test("a ping by uuid finds its check; it was not created", () => {
  const shard = setUp();
  const pinged = shard.ping(pingOf({ uuid: nthId(1) }, T0 + MINUTE));
  assert.equal(pinged.ok && pinged.value, { checkUuid: nthId(1), created: false, badgeKey: nthId(2) });
});

test("an unknown slug without create, an unknown ping key, an unknown uuid: not_found, and nothing is stored", () => {
  const shard = setUp();
  for (const target of [bySlug("nightly", false), bySlug("backup", true, "pk-other"), { uuid: nthId(99) }]) {
    const pinged = shard.ping(pingOf(target, T0 + MINUTE));
    assert.equal(pinged.ok ? pinged.value : pinged.failure, { code: "not_found", what: "check" }, JSON.stringify(target));
  }
  const changes = shard.takeChanges();
  assert.equal([changes.checks, changes.pings], [[], []]);
  assert.is(shard.checkCount, 1);
});

test("two checks with the ping's slug: ambiguous_slug, and neither is pinged", () => {
  const shard = setUp();
  shard.createCheck("p", { name: "backup again", slug: "backup" }, [], T0);
  shard.takeChanges();
  const pinged = shard.ping(pingOf(bySlug("backup", true), T0 + MINUTE));
  assert.equal(pinged.ok ? pinged.value : pinged.failure, { code: "ambiguous_slug" });
  assert.equal(shard.takeChanges().pings, []);
});

test("an unknown slug with create makes the check: named by its slug, every channel of the project (sorted), created at the ping", () => {
  const shard = setUp();
  const pinged = shard.ping(pingOf(bySlug("nightly", true), T0 + MINUTE));
  assert.equal(pinged.ok && pinged.value, { checkUuid: nthId(3), created: true, badgeKey: nthId(4) });
  const check = shard.getCheck("p", nthId(3));
  assert.ok(check.ok);
  if (!check.ok) return;
  assert.equal(
    [check.value.name, check.value.slug, check.value.channels, check.value.createdAt],
    ["nightly", "nightly", ["ch-a", "ch-b"], T0 + MINUTE],
  );
  assert.equal([check.value.status, check.value.nPings], ["up", 1]);
  // the rest is a new check's defaults (the API's): every ping counts, a cron schedule of every minute unused
  const {
    tags,
    desc,
    kind,
    schedule,
    tz,
    manualResume,
    methods,
    startKw,
    successKw,
    failureKw,
    filterSubject,
    filterBody,
    filterHttpBody,
    filterDefaultFail,
  } = check.value;
  assert.equal(
    {
      tags,
      desc,
      kind,
      schedule,
      tz,
      manualResume,
      methods,
      startKw,
      successKw,
      failureKw,
      filterSubject,
      filterBody,
      filterHttpBody,
      filterDefaultFail,
    },
    {
      tags: "",
      desc: "",
      kind: "simple",
      schedule: "* * * * *",
      tz: "UTC",
      manualResume: false,
      methods: "",
      startKw: "",
      successKw: "",
      failureKw: "",
      filterSubject: false,
      filterBody: false,
      filterHttpBody: false,
      filterDefaultFail: false,
    },
  );
  assert.equal([check.value.timeoutMs, check.value.graceMs], [86_400_000, 3_600_000]);
  const changes = shard.takeChanges();
  assert.equal(
    changes.pings.map((p) => [p.checkUuid, p.record.n]),
    [[nthId(3), 1]],
  );
  assert.equal(
    changes.checks.map((c) => [c.uuid, c.slug, c.nPings]),
    [[nthId(3), "nightly", 1]],
  );
  const again = shard.ping(pingOf(bySlug("nightly", true), T0 + 2 * MINUTE));
  assert.equal(again.ok && again.value, { checkUuid: nthId(3), created: false, badgeKey: nthId(4) });
});

test("auto-provisioning goes up to twice the check limit (2 here: 4 checks), then answers not_found", () => {
  const shard = setUp();
  const results = ["two", "three", "four", "five"].map((slug) => {
    const pinged = shard.ping(pingOf(bySlug(slug, true), T0 + MINUTE));
    return pinged.ok ? pinged.value.created : pinged.failure.code;
  });
  assert.equal(results, [true, true, true, "not_found"]);
  assert.is(shard.checkCount, 4);
  // the API's own creation stops at the limit itself
  const made = shard.createCheck("p", { name: "api" }, [], T0 + MINUTE);
  assert.equal(made.ok ? made.value : made.failure, { code: "check_limit" });
});

test("a check the API makes with no fields has no name and no slug", () => {
  const made = setUp().createCheck("p", {}, [], T0 + MINUTE);
  assert.equal(made.ok && [made.value.check.name, made.value.check.slug, made.value.created], ["", "", true]);
});

test.run();
