// The replicated directory's key layout: fixed keys for fixed ids (the layout is what other nodes and
// versions read, so it is pinned here, not just round-tripped), ids that are not key-safe encoded so that
// every id has one token, keys outside the layout refused, and values decoded or refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  checkKey,
  decodeBadgeKey,
  decodeProject,
  encodeBadgeKey,
  encodeProject,
  idToken,
  parseKey,
  partitionFilters,
  projectKey,
  tokenId,
} from "../../cluster/directory-keys.ts";
import type { Project } from "../../engine/model.ts";

const P = "6c3ad4d6-6a5b-4c44-9d5e-3c1f6f1b2a10";
const C = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";

test("keys are fixed strings for uuid ids", () => {
  assert.is(projectKey(7, P), `p.7.${P}`);
  assert.is(checkKey(63, P, C), `c.63.${P}.${C}`);
  assert.equal(partitionFilters(5), { projects: "p.5.>", checks: "c.5.>" });
  assert.equal(parseKey(`p.7.${P}`), { kind: "project", partition: 7, projectId: P });
  assert.equal(parseKey(`c.63.${P}.${C}`), { kind: "check", partition: 63, projectId: P, uuid: C });
});

test("ids with characters a key may not hold are encoded, one token per id", () => {
  assert.is(idToken("a.b c"), `_${Buffer.from("a.b c").toString("base64url")}`);
  for (const id of ["a.b c", "_x", "é", "", "UPPER-case-1", "x_y", "*", ">"]) {
    const token = idToken(id);
    assert.ok(/^[-_A-Za-z0-9]+$/.test(token), `${JSON.stringify(id)} → ${token}`);
    assert.is(tokenId(token), id);
    assert.equal(parseKey(checkKey(1, id, id)), { kind: "check", partition: 1, projectId: id, uuid: id });
  }
  assert.is.not(idToken("_x"), "_x", "an id that looks encoded is encoded itself");
  assert.is(tokenId("_"), "", "the empty id");
  assert.is(tokenId("_eA=="), null, "padding: not a token idToken makes");
});

test("keys outside the layout are refused", () => {
  for (const key of ["x.1.a", "p.01.a", "p.-1.a", "p.1", "p.1.a.b", "c.1.a", "c.1.a.b.c", "p.x.a", "p.1._eA==", "c.99999999999.a.b"]) {
    assert.is(parseKey(key), null, key);
  }
});

test("values: a project's record whole, a check's badge key; anything else is refused", () => {
  const project: Project = {
    id: P,
    name: "n",
    apiKey: "k1",
    apiKeyReadonly: "k2",
    pingKey: "pk",
    badgeKey: C,
    checkLimit: 20,
    pingLogLimit: 100,
    pingBodyLimit: 10_000,
    createdAt: 1_700_000_000_000,
    mutedUntilAt: null,
  };
  assert.equal(decodeProject(encodeProject(project)), project);
  const { mutedUntilAt: _, ...unmuted } = project;
  assert.equal(decodeProject(encodeProject(unmuted)), unmuted);
  assert.is(decodeProject(new TextEncoder().encode("{")), null);
  assert.is(decodeProject(new TextEncoder().encode(JSON.stringify({ ...project, apiKey: 1 }))), null);
  assert.is(decodeProject(new TextEncoder().encode(JSON.stringify({ ...project, mutedUntilAt: "soon" }))), null);
  assert.is(decodeBadgeKey(encodeBadgeKey(C)), C);
  assert.is(decodeBadgeKey(new Uint8Array([0xff])), null);
});

test.run();
