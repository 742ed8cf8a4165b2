import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Check, PingKind } from "../../engine/model.ts";
import { PING_SIGNALS } from "../../engine/model.ts";
import type { HttpPing } from "../../engine/classify.ts";
import { classify, classifyEmail, matchKeywords } from "../../engine/classify.ts";
import { check } from "../helpers.ts";

const http = (over: Partial<HttpPing> = {}): HttpPing => ({ signal: "success", exitStatus: null, method: "POST", body: "", ...over });
const filtering = (over: Partial<Check> = {}): Partial<Check> => ({
  filterHttpBody: true,
  startKw: "begin",
  successKw: "OK, done",
  failureKw: "ERROR",
  ...over,
});

const rows: [name: string, given: Partial<Check>, ping: Partial<HttpPing>, want: PingKind][] = [
  ...PING_SIGNALS.map((signal): [string, Partial<Check>, Partial<HttpPing>, PingKind] => [
    `without filtering the URL decides: ${signal}`,
    {},
    { signal, body: "ERROR" },
    signal,
  ]),
  ["exit status 0 is a success", {}, { exitStatus: 0 }, "success"],
  ["exit status 1 is a failure", {}, { exitStatus: 1 }, "fail"],
  ["exit status 255 is a failure", {}, { exitStatus: 255 }, "fail"],
  ["methods POST: GET is ignored", { methods: "POST" }, { method: "GET" }, "ign"],
  ["methods POST: HEAD is ignored", { methods: "POST" }, { method: "HEAD" }, "ign"],
  ["methods POST: a failing exit status by GET is ignored", { methods: "POST" }, { method: "GET", exitStatus: 3 }, "ign"],
  ["methods POST: POST counts", { methods: "POST" }, { method: "POST", signal: "fail" }, "fail"],
  ["any method counts without methods POST", {}, { method: "PUT", signal: "start" }, "start"],
  [
    "methods POST comes before keywords, even filter_default_fail",
    filtering({ methods: "POST", filterDefaultFail: true }),
    { method: "GET", body: "ERROR" },
    "ign",
  ],
  ["a failure keyword beats a success one", filtering(), { body: "OK ERROR" }, "fail"],
  ["a success keyword beats a start one", filtering(), { body: "begin OK" }, "success"],
  ["a start keyword", filtering(), { body: "begin" }, "start"],
  ["any item of the list matches", filtering(), { body: "all done" }, "success"],
  ["no match is ignored", filtering(), { body: "nothing" }, "ign"],
  ["no match with filter_default_fail fails", filtering({ filterDefaultFail: true }), { body: "nothing" }, "fail"],
  ["an empty GET body falls to the default", filtering({ filterDefaultFail: true }), { method: "GET" }, "fail"],
  ["keywords are case-sensitive", filtering(), { body: "error" }, "ign"],
  ["a success keyword overrides /fail", filtering(), { signal: "fail", body: "OK" }, "success"],
  ["a success keyword overrides /log", filtering(), { signal: "log", body: "OK" }, "success"],
  ["a failure keyword overrides /start", filtering(), { signal: "start", body: "ERROR" }, "fail"],
  ["no match turns /log into ign", filtering(), { signal: "log", body: "x" }, "ign"],
  ["a success keyword overrides a failing exit status", filtering(), { exitStatus: 1, body: "OK" }, "success"],
  ["a start keyword overrides exit status 0", filtering(), { exitStatus: 0, body: "begin" }, "start"],
  ["empty keyword lists never match", { filterHttpBody: true, filterDefaultFail: true }, { body: "anything" }, "fail"],
  ["keywords search a byte body as UTF-8", filtering({ successKw: "größe" }), { body: new TextEncoder().encode("die größe") }, "success"],
  [
    "an invalid UTF-8 body is decoded leniently, not rejected",
    filtering(),
    { body: new Uint8Array([0xff, 0xfe, 0x4f, 0x4b, 0xc3]) },
    "success",
  ],
  ["paused with manual_resume ignores pings", { status: "paused", manualResume: true }, {}, "ign"],
  ["paused with manual_resume ignores failures", { status: "paused", manualResume: true }, { exitStatus: 1 }, "ign"],
  ["paused with manual_resume ignores starts", { status: "paused", manualResume: true }, { signal: "start" }, "ign"],
  ["paused with manual_resume ignores keyword matches", filtering({ status: "paused", manualResume: true }), { body: "ERROR" }, "ign"],
  ["paused without manual_resume counts", { status: "paused" }, {}, "success"],
  ["manual_resume on an up check counts", { status: "up", manualResume: true }, { signal: "fail" }, "fail"],
];
for (const [name, given, ping, want] of rows) {
  test(name, () => assert.is(classify(check(given), http(ping)), want));
}

const mail = { subject: "Backup OK", text: "ERROR in line 3\nbegin" };
const emailRows: [name: string, given: Partial<Check>, want: PingKind][] = [
  ["email without filtering is a success, whatever the text", { failureKw: "ERROR" }, "success"],
  ["email filter_http_body alone doesn't filter", { filterHttpBody: true, failureKw: "ERROR" }, "success"],
  ["email subject filtering searches the subject only", { filterSubject: true, successKw: "OK", failureKw: "ERROR" }, "success"],
  ["email body filtering searches the body only", { filterBody: true, successKw: "OK", failureKw: "ERROR" }, "fail"],
  [
    "email subject and body: the failure keyword wins",
    { filterSubject: true, filterBody: true, successKw: "OK", failureKw: "ERROR" },
    "fail",
  ],
  ["email start keyword", { filterBody: true, startKw: "begin" }, "start"],
  ["email start keyword loses to success", { filterSubject: true, filterBody: true, startKw: "begin", successKw: "Backup" }, "success"],
  ["email no match is ignored", { filterSubject: true, successKw: "done" }, "ign"],
  ["email no match with filter_default_fail fails", { filterSubject: true, successKw: "done", filterDefaultFail: true }, "fail"],
  ["email to a paused manual_resume check is ignored", { status: "paused", manualResume: true }, "ign"],
  [
    "email keyword match on a paused manual_resume check is ignored",
    { status: "paused", manualResume: true, filterSubject: true, successKw: "OK" },
    "ign",
  ],
];
for (const [name, given, want] of emailRows) {
  test(name, () => assert.is(classifyEmail(check(given), mail), want));
}

test("email filtering searches only the parts it is told to: nothing else joins the searched text", () => {
  // a one-letter keyword would match any text added besides the filtered part
  const mailE = { subject: "e", text: "OK" };
  assert.is(classifyEmail(check({ filterBody: true, failureKw: "e" }), mailE), "ign", "body only: the subject is not searched");
  assert.is(
    classifyEmail(check({ filterSubject: true, failureKw: "e" }), { subject: "OK", text: "e" }),
    "ign",
    "subject only: the body is not searched",
  );
});

test("email subject and body are searched as separate lines", () => {
  assert.is(classifyEmail(check({ filterSubject: true, filterBody: true, successKw: "ab" }), { subject: "a", text: "b" }), "ign");
});

const keywordRows: [text: string, csv: string, want: boolean][] = [
  ["all OK", "OK", true],
  ["all OK", "ok", false],
  ["all OK", " fine ,  OK ", true],
  ["all OK", "", false],
  ["all OK", " , ,", false],
  ["a,b", ",", false],
  ["", "x", false],
  ["x y", "x y", true],
];
for (const [text, csv, want] of keywordRows) {
  test(`matchKeywords(${JSON.stringify(text)}, ${JSON.stringify(csv)}) is ${want}`, () => assert.is(matchKeywords(text, csv), want));
}

test.run();
