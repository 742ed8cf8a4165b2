// The role rules as a table: every role against every action, written out by hand from the contract.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Action, Role } from "../../engine/roles.ts";
import { ACTIONS, mayAssign, mayDo, ROLES, roleOf } from "../../engine/roles.ts";

// columns: readonly, member, manager, owner (CONTRACT "Users, roles and sign-in")
const TABLE: [Action, readonly [boolean, boolean, boolean, boolean]][] = [
  ["project.view", [true, true, true, true]],
  ["audit.view", [true, true, true, true]],
  ["checks.change", [false, true, true, true]],
  ["checks.integrations", [false, true, true, true]],
  ["checks.pingLog", [false, true, true, true]],
  ["checks.pingUrls", [false, true, true, true]], // as the reference: members see ping URLs and the ping key, read-only users not
  ["integrations.test", [false, true, true, true]],
  ["integrations.change", [false, false, true, true]],
  ["keys.view", [false, false, true, true]],
  ["keys.change", [false, false, true, true]],
  ["members.change", [false, false, true, true]],
  ["statusPages.change", [false, false, true, true]],
  ["project.change", [false, false, false, true]],
];

test("the table names every action once", () => {
  assert.equal(TABLE.map(([action]) => action).sort(), [...ACTIONS].sort());
});

for (const [action, allowed] of TABLE) {
  ROLES.forEach((role, i) => {
    test(`${role} ${allowed[i] ? "may" : "may not"} do ${action}`, () => assert.is(mayDo(role, action), allowed[i]));
  });
}

const ASSIGN: [Role, readonly [boolean, boolean, boolean, boolean]][] = [
  ["readonly", [false, false, false, false]],
  ["member", [false, false, false, false]],
  ["manager", [true, true, true, false]],
  ["owner", [true, true, true, true]],
];
for (const [role, allowed] of ASSIGN) {
  ROLES.forEach((target, i) => {
    test(`${role} ${allowed[i] ? "may" : "may not"} give the role ${target}`, () => assert.is(mayAssign(role, target), allowed[i]));
  });
}

test("a higher role may do everything a lower one may", () => {
  for (const action of ACTIONS) {
    for (let i = 1; i < ROLES.length; i++) if (mayDo(ROLES[i - 1], action)) assert.ok(mayDo(ROLES[i], action), `${ROLES[i]} ${action}`);
  }
});

test("roles are read from their exact names only", () => {
  assert.equal(["readonly", "member", "manager", "owner", "Owner", "admin", "", 3, null].map(roleOf), [
    "readonly",
    "member",
    "manager",
    "owner",
    null,
    null,
    null,
    null,
    null,
  ]);
});

test.run();
