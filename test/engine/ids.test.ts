// The shapes of a check's names: uuids (lower case for routes, any case for run ids and mail), the API's
// slugs and the slug segments of ping URLs; each rule whole, from its first character to its last.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isSlug, isSlugSegment, isUuid, isUuidAnyCase } from "../../engine/ids.ts";

const U = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

test("a uuid: 8-4-4-4-12 lower-case hex digits, nothing before or after", () => {
  assert.is(isUuid(U), true);
  for (const bad of [
    U.toUpperCase(),
    `x${U}`,
    `${U}x`,
    `${U}0`,
    U.slice(1),
    U.slice(0, -1),
    U.replace(/-/g, ""),
    U.replace("-", "0"),
    "0a1b2c3-d4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "0a1b2c3d-4e5-f4a6b-8c7d-9e0f1a2b3c4d",
    "0a1b2c3d-4e5f-4a6-b8c7d-9e0f1a2b3c4d",
    "0a1b2c3d-4e5f-4a6b-8c7-d9e0f1a2b3c4d",
    U.replace("a", "g"),
    `${U}\n`,
    "",
  ]) {
    assert.is(isUuid(bad), false, bad);
  }
});

test("a uuid in any case: upper and mixed case too, and still nothing else", () => {
  for (const good of [U, U.toUpperCase(), "0A1b2C3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"]) assert.is(isUuidAnyCase(good), true, good);
  for (const bad of [
    `x${U}`,
    `${U}x`,
    `${U}0`,
    U.slice(0, -1),
    U.replace(/-/g, ""),
    U.replace("a", "g"),
    "0a1b2c3-d4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    "0a1b2c3d-4e5-f4a6b-8c7d-9e0f1a2b3c4d",
    "0a1b2c3d-4e5f-4a6-b8c7d-9e0f1a2b3c4d",
    "0a1b2c3d-4e5f-4a6b-8c7-d9e0f1a2b3c4d",
    "",
  ]) {
    assert.is(isUuidAnyCase(bad), false, bad);
  }
});

test("an API slug: lower-case letters, digits, - and _, or empty", () => {
  for (const good of ["", "backup", "db-backup_2", "-", "_", "9"]) assert.is(isSlug(good), true, good);
  for (const bad of ["Backup", "db backup", "db.backup", "ok!", "é", "x/y", "a\n"]) assert.is(isSlug(bad), false, bad);
});

test("a ping URL's slug segment: letters of either case, digits, - and _, at least one", () => {
  for (const good of ["backup", "Backup", "DB-backup_2", "-", "_", "9"]) assert.is(isSlugSegment(good), true, good);
  for (const bad of ["", "db backup", "db.backup", "ok!", "é", "x/y", "a\n", " a"]) assert.is(isSlugSegment(bad), false, bad);
});

test.run();
