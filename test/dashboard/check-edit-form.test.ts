// The check form without the API, in a real browser (Debian's chromium driven by playwright-core) against a
// real hcd process: period and grace as a number and a unit with the reference's quick picks (with and
// without script), only the chosen schedule kind's inputs, the time-zone picker (its names and the
// server's refusal of others), a preview for every kind next to the schedule, and the filtering rules
// (folded while they hold their defaults, as the alerting fields are), the slug suggested from the name, and
// durations sent without a unit read as seconds. Every save is verified through the API.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";
import { session } from "./form-session.ts";

const TOKEN = "check-edit-form-admin-token-0123456789";

type CheckJson = {
  uuid: string;
  name: string;
  timeout?: number;
  grace: number;
  schedule?: string;
  tz?: string;
  methods: string;
  start_kw: string;
  success_kw: string;
  failure_kw: string;
  filter_http_body: boolean;
  filter_subject: boolean;
  filter_body: boolean;
  filter_default_fail: boolean;
};

await whenChromium("check edit form browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  let page: Page;
  let bare: Page; // script off: what works by HTML and CSS alone
  let project: ProjectJson;
  const url = () => rig().server.url;
  const api = <T>(method: string, path: string, body?: unknown) => ok<T>(call(url(), method, path, { key: project.api_key, body }));
  const byName = async (name: string) =>
    (await api<{ checks: (CheckJson & { ping_url: string })[] }>("GET", "/api/v3/checks/")).checks.find((c) => c.name === name);
  const uuidOf = (check: { ping_url: string } | undefined) => check?.ping_url.split("/").pop() ?? "";
  const newForm = async (on: Page, name: string) => {
    await on.goto(`${url()}/projects/${project.id}/checks/new`);
    await on.getByLabel("Name").fill(name);
  };

  test.before(async () => {
    project = await createProject(rig().server, TOKEN, { name: "Ops" });
    page = await (await newContext(rig().browser)).newPage();
    await signIn(page, url(), project.api_key);
    bare = await (await newContext(rig().browser, { javaScriptEnabled: false })).newPage();
    await signIn(bare, url(), project.api_key);
  });

  test("period and grace are a number and a unit; the API receives seconds", async () => {
    await newForm(page, "units");
    assert.is(await page.locator("#f-timeout_unit").inputValue(), "days", "a new check: every 1 day");
    await page.locator("#f-timeout").fill("2");
    await page.locator("#f-timeout_unit").selectOption("hours");
    await page.locator("#f-grace").fill("1.5");
    await page.locator("#f-grace_unit").selectOption("minutes");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Check created.").waitFor();
    const made = await byName("units");
    assert.equal([made?.timeout, made?.grace], [7200, 90]);
    await page.goto(`${url()}/checks/${uuidOf(made)}/edit`);
    assert.equal([await page.locator("#f-timeout").inputValue(), await page.locator("#f-timeout_unit").inputValue()], ["2", "hours"]);
    assert.equal(
      [await page.locator("#f-grace").inputValue(), await page.locator("#f-grace_unit").inputValue()],
      ["90", "seconds"],
      "not a whole number of minutes: seconds",
    );
  });

  test("a period below the minimum names the limit next to the field, in words and seconds", async () => {
    await newForm(page, "too short");
    await page.locator("#f-timeout").fill("30");
    await page.locator("#f-timeout_unit").selectOption("seconds");
    await page.getByRole("button", { name: "Save" }).click();
    assert.is(
      await page.locator("#e-timeout").textContent(),
      "Period must be a number between 1 minute and 365 days (60 to 31536000 seconds).",
    );
    assert.equal(
      [await page.locator("#f-timeout").inputValue(), await page.locator("#f-timeout_unit").inputValue()],
      ["30", "seconds"],
      "the typed value is kept",
    );
    assert.is(await byName("too short"), undefined, "nothing was created");
  });

  test("a quick pick fills its number and unit in place (script on)", async () => {
    await newForm(page, "picked");
    await page.evaluate(() => {
      document.body.dataset.marker = "loaded once";
    }); // gone if the page were loaded again
    await page.getByRole("button", { name: "Period: 5 minutes" }).click();
    await page.getByRole("button", { name: "Grace time: 1 hour" }).click();
    assert.is(await page.evaluate(() => document.body.dataset.marker), "loaded once", "the same page: nothing was sent");
    assert.equal([await page.locator("#f-timeout").inputValue(), await page.locator("#f-timeout_unit").inputValue()], ["5", "minutes"]);
    assert.equal([await page.locator("#f-grace").inputValue(), await page.locator("#f-grace_unit").inputValue()], ["1", "hours"]);
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Check created.").waitFor();
    const made = await byName("picked");
    assert.equal([made?.timeout, made?.grace], [300, 3600]);
  });

  test("a quick pick works without script: the server answers with the form filled in, the rest kept", async () => {
    await newForm(bare, "picked by hand");
    await bare.getByRole("button", { name: "Period: 1 week" }).click();
    await bare.locator("#f-timeout").waitFor();
    assert.equal([await bare.locator("#f-timeout").inputValue(), await bare.locator("#f-timeout_unit").inputValue()], ["7", "days"]);
    assert.is(await bare.getByLabel("Name").inputValue(), "picked by hand");
    assert.is(await byName("picked by hand"), undefined, "a quick pick saves nothing");
    await bare.getByRole("button", { name: "Save" }).click();
    await bare.getByText("Check created.").waitFor();
    assert.is((await byName("picked by hand"))?.timeout, 604800);
  });

  test("Enter in a field saves the form (the quick picks are buttons too, but not the first)", async () => {
    await newForm(page, "entered");
    await page.getByLabel("Name").press("Enter");
    await page.getByText("Check created.").waitFor();
    assert.equal([(await byName("entered"))?.timeout, (await byName("entered"))?.grace], [86400, 3600], "the form's defaults, no pick");
  });

  test("only the chosen schedule kind's inputs show, with script and without", async () => {
    for (const on of [page, bare]) {
      await newForm(on, "kinds");
      const shown = async () => ({
        period: await on.locator("#f-timeout").isVisible(),
        expression: await on.locator("#f-schedule").isVisible(),
        tz: await on.locator("#f-tz").isVisible(),
        cronHint: await on.locator(".hint.kind-cron").isVisible(),
        onCalendarHint: await on.locator(".hint.kind-oncalendar").isVisible(),
        grace: await on.locator("#f-grace").isVisible(),
      });
      assert.equal(
        await shown(),
        { period: true, expression: false, tz: false, cronHint: false, onCalendarHint: false, grace: true },
        "simple",
      );
      await on.getByRole("radio", { name: "Cron expression" }).check();
      assert.equal(
        await shown(),
        { period: false, expression: true, tz: true, cronHint: true, onCalendarHint: false, grace: true },
        "cron",
      );
      await on.getByRole("radio", { name: "OnCalendar expression" }).check();
      assert.equal(
        await shown(),
        { period: false, expression: true, tz: true, cronHint: false, onCalendarHint: true, grace: true },
        "OnCalendar",
      );
    }
  });

  test("the time zone is picked from the IANA names, UTC first and chosen by default", async () => {
    await newForm(page, "zoned");
    await page.getByRole("radio", { name: "Cron expression" }).check();
    const names = await page.locator("#f-tz option").allTextContents();
    assert.equal(names, ["UTC", ...Intl.supportedValuesOf("timeZone")], "every name this Node.js knows");
    assert.is(await page.locator("#f-tz").inputValue(), "UTC");
    await page.locator("#f-schedule").fill("30 4 * * *");
    await page.getByLabel("Time zone").selectOption("Asia/Tokyo");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Check created.").waitFor();
    const made = await byName("zoned");
    assert.equal([made?.schedule, made?.tz], ["30 4 * * *", "Asia/Tokyo"]);
  });

  test("the server takes only the picker's names for a new zone, and keeps one the check already has (the API takes more)", async () => {
    const form = await session(url(), project.api_key);
    const fields = {
      name: "legacy",
      kind: "cron",
      schedule: "0 3 * * *",
      timeout: "1",
      timeout_unit: "days",
      grace: "1",
      grace_unit: "hours",
      action: "save",
    };
    assert.is(
      ((await api<unknown>("POST", "/api/v3/checks/", { name: "api zone", schedule: "0 3 * * *", tz: "Etc/GMT+5" })) as { tz: string }).tz,
      "Etc/GMT+5",
      "the API takes it",
    );
    const refused = await form.post(`/projects/${project.id}/checks/new`, { ...fields, tz: "Etc/GMT+5" });
    assert.is(refused.status, 400);
    assert.match(refused.text, "Time zone must be an IANA time zone name, like UTC, Europe/Riga or America/New_York.");
    assert.is(await byName("legacy"), undefined);
    const stored = await byName("api zone");
    const kept = await form.post(`/checks/${uuidOf(stored)}/edit`, { ...fields, name: "api zone", tz: "Etc/GMT+5" });
    assert.is(kept.status, 303, "its own zone saves unchanged");
    assert.is((await byName("api zone"))?.tz, "Etc/GMT+5");
  });

  test("the preview lists the next runs of cron and OnCalendar in the check's zone, and says what a simple period means", async () => {
    const preview = async (kind: string, expression: string) => {
      await newForm(page, "previewed");
      await page.getByRole("radio", { name: kind }).check();
      await page.locator("#f-schedule").fill(expression);
      await page.getByLabel("Time zone").selectOption("Europe/Riga");
      await page.getByRole("button", { name: "Preview the next pings" }).click();
      await page.locator(".next .zoned").first().waitFor(); // the preview is a new page: wait for it before reading
      return page.locator(".next .zoned").allTextContents();
    };
    const cron = await preview("Cron expression", "0 3 * * *");
    assert.is(cron.length, 5);
    for (const text of cron) assert.match(text, / 03:00:00 Europe\/Riga$/);
    const onCalendar = await preview("OnCalendar expression", "Mon *-*-* 05:30:00");
    assert.is(onCalendar.length, 5);
    for (const text of onCalendar) {
      assert.match(text, / 05:30:00 Europe\/Riga$/);
      assert.is(new Date(`${text.slice(0, 10)}T12:00:00Z`).getUTCDay(), 1, `${text} is a Monday`);
    }
    await newForm(page, "simple previewed");
    await page.locator("#f-timeout").fill("2");
    await page.locator("#f-timeout_unit").selectOption("hours");
    await page.locator("#f-grace").fill("15");
    await page.locator("#f-grace_unit").selectOption("minutes");
    await page.getByRole("button", { name: "Preview the next pings" }).click();
    await page
      .getByText(
        "Simple period: after each ping the next one is expected within 2 hours, then 15 minutes of grace before the check is down.",
      )
      .waitFor();
  });

  test("the preview shows in the schedule's fieldset, above alerting and filtering, and the page opens at it (script on and off)", async () => {
    for (const on of [page, bare]) {
      await newForm(on, "previewed near");
      await on.getByRole("radio", { name: "Cron expression" }).check();
      await on.locator("#f-schedule").fill("0 3 * * *");
      await on.locator("fieldset.schedule").getByRole("button", { name: "Preview the next pings" }).click();
      const list = on.locator("fieldset.schedule li.next");
      await list.first().waitFor();
      assert.is(await list.count(), 5, "the list is in the schedule's fieldset");
      const listBox = await on.locator("fieldset.schedule .schedule-preview ul").boundingBox();
      const alertingBox = await on.locator("details.alerting").boundingBox();
      assert.ok(listBox !== null && alertingBox !== null);
      assert.ok(listBox.y + listBox.height <= alertingBox.y, "above the alerting section (and so above filtering)");
      const viewport = on.viewportSize()?.height ?? 0;
      assert.ok(listBox.y >= 0 && listBox.y + listBox.height <= viewport, `in sight without scrolling: ${listBox.y} in ${viewport}`);
      assert.is(await on.locator("#f-schedule").inputValue(), "0 3 * * *", "what was typed stays");
      await newForm(on, "simple previewed near");
      await on.locator("fieldset.schedule").getByRole("button", { name: "Preview the next pings" }).click();
      await on.locator("fieldset.schedule p.next").getByText("Simple period: after each ping").waitFor();
    }
  });

  test("the add form suggests the slug from the name as the reference slugifies it, never over a slug typed by hand", async () => {
    await page.goto(`${url()}/projects/${project.id}/checks/new`);
    const name = page.getByLabel("Name");
    const slug = page.locator("#f-slug");
    await name.pressSequentially("Nightly DB backup (prod) — Ünïcode");
    assert.is(await slug.inputValue(), "nightly-db-backup-prod-unicode", "lower case, punctuation gone, spaces to -, accents off");
    await name.press("Backspace");
    assert.is(await slug.inputValue(), "nightly-db-backup-prod-unicod", "the suggestion follows the name");
    await slug.fill("my-own");
    await name.press("End"); // back in the name, typing on at its end
    await name.pressSequentially("e 2");
    assert.is(await slug.inputValue(), "my-own", "a slug typed by hand stays");
    await slug.fill("");
    await name.fill("Nightly DB backup (prod) — Ünïcode");
    assert.is(await slug.inputValue(), "nightly-db-backup-prod-unicode", "an emptied slug takes the suggestion again");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Check created.").waitFor();
    const made = await api<{ checks: { name: string; slug: string }[] }>("GET", "/api/v3/checks/");
    assert.equal(
      made.checks.filter((c) => c.name.startsWith("Nightly")).map((c) => [c.name, c.slug]),
      [["Nightly DB backup (prod) — Ünïcode", "nightly-db-backup-prod-unicode"]],
    );
    // the edit form leaves an existing check's slug alone, empty or not
    const bare = await api<{ ping_url: string }>("POST", "/api/v3/checks/", { name: "no slug", timeout: 3600 });
    await page.goto(`${url()}/checks/${uuidOf(bare)}/edit`);
    await name.pressSequentially(" renamed");
    assert.is(await slug.inputValue(), "", "no suggestion on the edit form");
  });

  test("the filtering rules are edited in the form and saved as the API's fields", async () => {
    const check = await api<{ ping_url: string }>("POST", "/api/v3/checks/", { name: "filtered", timeout: 3600 });
    await page.goto(`${url()}/checks/${uuidOf(check)}/edit`);
    // no rules yet: the section is folded under its title, which says so; the title unfolds it
    const filtering = page.locator("details.filtering");
    assert.is(await filtering.getAttribute("open"), null);
    assert.is(await filtering.locator("summary").innerText(), "Filtering rules (none: every ping counts as its URL says)");
    assert.ok(await page.locator("details.alerting:not([open])").isVisible(), "the alerting section too, at its defaults");
    assert.not.ok(await page.getByLabel("Success keywords").isVisible());
    await filtering.locator("summary").click();
    await page.getByLabel("Which HTTP requests count as pings").selectOption("POST");
    await page.getByLabel("Success keywords").fill("done,ok");
    await page.getByLabel("Failure keywords").fill("ERROR");
    await page.getByLabel("Start keywords").fill("begin");
    await page.getByLabel("the HTTP request body (its first 10 kB)").check();
    await page.getByLabel("the email subject").check();
    await page.getByLabel("A ping whose keywords match none of these is a failure").check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Changes saved.").waitFor();
    const saved = await byName("filtered");
    assert.equal(
      [
        saved?.methods,
        saved?.success_kw,
        saved?.failure_kw,
        saved?.start_kw,
        saved?.filter_http_body,
        saved?.filter_subject,
        saved?.filter_body,
        saved?.filter_default_fail,
      ],
      ["POST", "done,ok", "ERROR", "begin", true, true, false, true],
    );
    // the form shows them back, unfolded, and unticking turns them off
    await page.goto(`${url()}/checks/${uuidOf(check)}/edit`);
    assert.is(await filtering.getAttribute("open"), "");
    assert.is(await page.getByLabel("Success keywords").inputValue(), "done,ok");
    assert.ok(await page.getByLabel("the email subject").isChecked());
    await page.getByLabel("the email subject").uncheck();
    await page.getByLabel("Which HTTP requests count as pings").selectOption("");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Changes saved.").waitFor();
    const again = await byName("filtered");
    assert.equal([again?.methods, again?.filter_subject, again?.filter_http_body], ["", false, true]);
  });

  test("a keyword list over its limit is refused next to its field in plain words, nothing changed", async () => {
    const check = await api<{ ping_url: string }>("POST", "/api/v3/checks/", { name: "long words", timeout: 3600 });
    await page.goto(`${url()}/checks/${uuidOf(check)}/edit`);
    await page.locator("details.filtering > summary").click(); // folded at its defaults
    await page.getByLabel("Failure keywords").fill("x".repeat(201));
    await page.getByRole("button", { name: "Save" }).click();
    assert.is(await page.locator("#e-failure_kw").textContent(), "Failure keywords must be at most 200 characters.");
    assert.is(await page.locator("#f-failure_kw").getAttribute("aria-invalid"), "true");
    assert.is((await byName("long words"))?.failure_kw, "");
    const form = await session(url(), project.api_key);
    const methods = await form.post(`/checks/${uuidOf(check)}/edit`, {
      name: "long words",
      kind: "simple",
      timeout: "1",
      timeout_unit: "hours",
      grace: "1",
      grace_unit: "hours",
      methods: "PUT",
    });
    assert.is(methods.status, 400);
    assert.match(methods.text, "Which HTTP requests count must be HEAD, GET and POST, or only POST.");
  });

  test("min_duration and an escalation step's after sent without a unit read as seconds, as the reminder interval's do", async () => {
    const ops = await addChannel(rig().server, TOKEN, project.id, { kind: "email", name: "ops", value: "ops@example.com" });
    const check = await api<{ ping_url: string }>("POST", "/api/v3/checks/", { name: "unitless", timeout: 3600 });
    const form = await session(url(), project.api_key);
    const fields = { name: "unitless", kind: "simple", timeout: "1", timeout_unit: "hours", grace: "1", grace_unit: "hours" };
    const saved = await form.post(`/checks/${uuidOf(check)}/edit`, {
      ...fields,
      min_duration: "90",
      reminder_interval: "600",
      escalation_mode: "own",
      escalation_1_after: "120",
      escalation_1_channels: ops.id,
    });
    assert.is(saved.status, 303, saved.text.slice(0, 300));
    const shown = await api<{ min_duration: number; reminder_interval: number; escalation: unknown }>(
      "GET",
      `/api/v3/checks/${uuidOf(check)}`,
    );
    assert.equal([shown.min_duration, shown.reminder_interval, shown.escalation], [90, 600, [{ after: 120, channels: ops.id }]]);
    const withUnits = await form.post(`/checks/${uuidOf(check)}/edit`, {
      ...fields,
      min_duration: "2",
      min_duration_unit: "minutes",
      escalation_mode: "own",
      escalation_1_after: "1.5",
      escalation_1_after_unit: "hours",
      escalation_1_channels: ops.id,
    });
    assert.is(withUnits.status, 303, withUnits.text.slice(0, 300));
    const again = await api<{ min_duration: number; escalation: unknown }>("GET", `/api/v3/checks/${uuidOf(check)}`);
    assert.equal([again.min_duration, again.escalation], [120, [{ after: 5400, channels: ops.id }]]);
  });

  test.run();
});
