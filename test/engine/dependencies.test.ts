// depends_on on its own: the reverse index of dependents as checks change their dependencies.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Dependents } from "../../engine/dependencies.ts";

test("the dependents of a check, sorted, as checks add and drop it; none for a check nothing depends on", () => {
  const index = new Dependents();
  assert.equal(index.of("db"), []);
  index.replace("web", undefined, ["db", "cache"]);
  index.replace("api", undefined, ["db"]);
  index.replace("batch", undefined, ["db"]);
  assert.equal(index.of("db"), ["api", "batch", "web"]);
  assert.equal(index.of("cache"), ["web"]);
  index.replace("web", ["db", "cache"], ["cache"]);
  assert.equal(index.of("db"), ["api", "batch"], "web dropped db; the others stay");
  index.replace("api", ["db"], undefined);
  index.replace("batch", ["db"], []);
  assert.equal(index.of("db"), []);
  assert.equal(index.of("cache"), ["web"]);
  assert.equal(index.of("unknown"), []);
});

test.run();
