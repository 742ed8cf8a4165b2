// DATA_DIR/unknown-time (persistence/unknown-time.ts): stretches hcd was not running, appended and synced,
// read back merged after a reopen; a torn last record is dropped and the next append starts on a record's
// boundary; stretches older than KEEP_MS before the newest are let go.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { appendFileSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { KEEP_MS, mergeSpans, UnknownTimeFile } from "../../persistence/unknown-time.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);

test("stretches recorded are read back after a reopen, oldest first", () => {
  const dir = tempDir();
  try {
    const file = UnknownTimeFile.open(dir.path);
    assert.equal(file.spans(), []);
    file.record({ fromAt: T0 + HOUR, toAt: T0 + 2 * HOUR });
    file.record({ fromAt: T0 + 5 * HOUR, toAt: T0 + 6 * HOUR });
    assert.equal(UnknownTimeFile.open(dir.path).spans(), [
      { fromAt: T0 + HOUR, toAt: T0 + 2 * HOUR },
      { fromAt: T0 + 5 * HOUR, toAt: T0 + 6 * HOUR },
    ]);
    assert.is(statSync(join(dir.path, "unknown-time")).size, 32, "two records of 16 bytes");
    assert.is(statSync(join(dir.path, "unknown-time")).mode & 0o777, 0o600);
  } finally {
    dir.remove();
  }
});

test("a torn last record is dropped, and what follows is recorded whole", () => {
  const dir = tempDir();
  try {
    UnknownTimeFile.open(dir.path).record({ fromAt: T0, toAt: T0 + MINUTE });
    appendFileSync(join(dir.path, "unknown-time"), Buffer.from([1, 2, 3, 4, 5])); // a crash in the middle of a write
    const file = UnknownTimeFile.open(dir.path);
    assert.equal(file.spans(), [{ fromAt: T0, toAt: T0 + MINUTE }]);
    file.record({ fromAt: T0 + HOUR, toAt: T0 + 2 * HOUR });
    assert.equal(UnknownTimeFile.open(dir.path).spans(), [
      { fromAt: T0, toAt: T0 + MINUTE },
      { fromAt: T0 + HOUR, toAt: T0 + 2 * HOUR },
    ]);
    assert.is(readFileSync(join(dir.path, "unknown-time")).length, 32);
  } finally {
    dir.remove();
  }
});

test("overlapping stretches are one, touching ones stay apart; an empty one is not recorded; old ones are let go", () => {
  assert.equal(
    mergeSpans([
      { fromAt: 5, toAt: 9 },
      { fromAt: 1, toAt: 4 },
      { fromAt: 3, toAt: 6 },
      { fromAt: 20, toAt: 21 },
      { fromAt: 9, toAt: 10 },
    ]),
    [
      { fromAt: 1, toAt: 9 },
      { fromAt: 9, toAt: 10 },
      { fromAt: 20, toAt: 21 },
    ],
  );
  const dir = tempDir();
  try {
    const file = UnknownTimeFile.open(dir.path);
    file.record({ fromAt: T0, toAt: T0 });
    assert.equal(file.spans(), []);
    file.record({ fromAt: T0, toAt: T0 + HOUR });
    file.record({ fromAt: T0 + KEEP_MS + DAY, toAt: T0 + KEEP_MS + DAY + HOUR });
    assert.equal(UnknownTimeFile.open(dir.path).spans(), [{ fromAt: T0 + KEEP_MS + DAY, toAt: T0 + KEEP_MS + DAY + HOUR }]);
  } finally {
    dir.remove();
  }
});

test.run();
