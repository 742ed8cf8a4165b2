// The alertmanager kind (CONTRACT "Alerting, third part"): what it posts to a stand-in Alertmanager for a
// down, a reminder and an up (one alert to /api/v2/alerts: firing for a year, then ended at the recovery),
// the labels hcd sets and the integration's own, the bearer token, and the values the admin API refuses.
// The same alert through a real Alertmanager is test/ops/alertmanager-kind.test.ts.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseServiceValue } from "../../notify/kinds/service.ts";
import { httpReceiver } from "./receivers.ts";
import {
  closeOutboxes,
  delivererOf,
  DOWN_AT,
  entryOf,
  LINK,
  REASON,
  REMINDER_AT,
  serviceChannel,
  settingsAt,
  UNIQUE_KEY,
  UP_AT,
} from "./service-kinds-fixture.ts";
import type { Direction } from "./service-kinds-fixture.ts";

test.after.each(closeOutboxes);

type Alert = {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
};
const YEAR_MS = 365 * 86_400_000;

async function posted(value: Record<string, unknown>, direction: Direction) {
  const am = await httpReceiver();
  try {
    const entry = entryOf(serviceChannel("alertmanager", { url: am.url, ...value }), direction);
    const { deliverer } = await delivererOf([entry], am.url);
    const at = direction === "down" ? DOWN_AT : direction === "up" ? UP_AT : REMINDER_AT;
    await deliverer.deliverDue(at);
    assert.is(am.requests.length, 1, "one request");
    const [request] = am.requests;
    return { request, alerts: JSON.parse(request.body) as Alert[], at };
  } finally {
    await am.close();
  }
}

test("a down posts one firing alert: hcd's labels, the integration's, the reason and the check's link", async () => {
  const { request, alerts, at } = await posted({ labels: "team=ops\nenv = prod" }, "down");
  assert.equal([request.method, request.path, request.headers["content-type"]], ["POST", "/api/v2/alerts", "application/json"]);
  assert.is(request.headers.authorization, undefined, "no token, no Authorization");
  assert.is(alerts.length, 1);
  const [alert] = alerts;
  assert.equal(alert.labels, {
    severity: "critical",
    team: "ops",
    env: "prod",
    alertname: "CheckDown",
    check: "Backup",
    check_id: UNIQUE_KEY,
    project: "Ops",
  });
  assert.is(alert.annotations.summary, "Backup is DOWN");
  assert.ok(alert.annotations.description.includes(REASON), alert.annotations.description);
  assert.match(alert.annotations.last_ping, /^Success, .* ago$/);
  assert.is(alert.generatorURL, LINK, "the check's public link, never its uuid");
  assert.not.ok(request.body.includes("5c3e8a1e-0000"), "the uuid (its ping URL) is not sent");
  assert.is(Date.parse(alert.startsAt), at);
  assert.is(Date.parse(alert.endsAt), at + YEAR_MS, "firing until resolved, not for Alertmanager's resolve_timeout");
});

test("a reminder fires the same alert again; an up ends it at the recovery, which resolves it", async () => {
  const reminder = await posted({}, "reminder");
  assert.is(reminder.alerts[0].labels.check_id, UNIQUE_KEY);
  assert.is(reminder.alerts[0].labels.alertname, "CheckDown");
  assert.ok(Date.parse(reminder.alerts[0].endsAt) > reminder.at, "still firing");
  const up = await posted({}, "up");
  assert.equal(
    up.alerts[0].labels,
    { severity: "critical", alertname: "CheckDown", check: "Backup", check_id: UNIQUE_KEY, project: "Ops" },
    "the same labels: the same alert",
  );
  assert.is(up.alerts[0].annotations.summary, "Backup is UP");
  assert.is(Date.parse(up.alerts[0].endsAt), up.at, "ended now: resolved");
});

test("a severity label replaces hcd's; a token is sent as a bearer token", async () => {
  const { request, alerts } = await posted({ labels: { severity: "page" }, token: "am-token" }, "down");
  assert.is(alerts[0].labels.severity, "page");
  assert.is(request.headers.authorization, "Bearer am-token");
});

test("the values the admin API refuses, each naming its field", () => {
  const settings = settingsAt("http://127.0.0.1");
  const refused = (value: unknown) => {
    const parsed = parseServiceValue("alertmanager", value, settings);
    assert.not.ok(parsed.ok, JSON.stringify(value));
    return parsed.ok ? "" : JSON.stringify(parsed.failure);
  };
  assert.match(refused("http://am:9093"), "value");
  assert.match(refused({ url: "ftp://am" }), "value.url");
  assert.match(refused({ url: "http://am", labels: "check=x" }), "set by hcd");
  assert.match(refused({ url: "http://am", labels: "alertname=x" }), "set by hcd");
  assert.match(refused({ url: "http://am", labels: "1team=x" }), "not a label name");
  assert.match(refused({ url: "http://am", labels: "__name=x" }), "not a label name");
  assert.match(refused({ url: "http://am", labels: "team" }), "needs a value");
  assert.match(refused({ url: "http://am", labels: { team: 1 } }), "needs a value");
  assert.match(refused({ url: "http://am", labels: { team: "x".repeat(201) } }), "needs a value");
  assert.match(refused({ url: "http://am", labels: Array.from({ length: 21 }, (_, i) => `l${i}=v`).join(",") }), "at most 20");
  assert.match(refused({ url: "http://am", token: "a b" }), "value.token");
  assert.match(refused({ url: "http://am", token: "x".repeat(501) }), "value.token");
  const kept = parseServiceValue("alertmanager", { url: "http://am:9093/", labels: "team=ops, env=prod" }, settings);
  assert.equal(
    kept.ok ? kept.value : null,
    { url: "http://am:9093", labels: "team=ops\nenv=prod" },
    "stored as one label a line, no trailing slash",
  );
});

test.run();
