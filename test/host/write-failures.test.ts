// Store write failures as episodes: however many writes fail, one line when the first fails and one when
// every kind that failed has succeeded again, with the changes refused meanwhile; a later failure starts
// a new episode. (test/persistence/disk-full.test.ts shows it on a real full file system.)
import { test } from "uvu";
import * as assert from "uvu/assert";
import { WriteFailures } from "../../host/write-failures.ts";
import { tempDir } from "../helpers.ts";

const EIO = Object.assign(new Error("i/o error, write"), { code: "EIO" });

test("an episode of several failed commits and checkpoints logs two lines: its start and its end", () => {
  const dir = tempDir();
  try {
    const lines: string[] = [];
    const failures = new WriteFailures("shard 0", dir.path, (line) => lines.push(line));
    assert.is(failures.failing, false);
    failures.failed("commit", EIO);
    failures.failed("commit", EIO);
    failures.failed("checkpoint", EIO);
    failures.failed("commit", EIO);
    failures.refused();
    failures.refused();
    assert.is(failures.failing, true);
    assert.is(lines.length, 1, lines.join("\n"));
    assert.match(lines[0], /^shard 0: the store refuses writes \(EIO: i\/o error, write\)/);
    failures.succeeded("commit");
    assert.is(failures.failing, true, "the checkpoint has not succeeded yet");
    assert.is(lines.length, 1, "no end while a kind still fails");
    failures.succeeded("checkpoint");
    assert.is(failures.failing, false);
    assert.is(lines.length, 2);
    assert.match(lines[1], /^shard 0: the store accepts writes again after [0-9.]+ s \(2 changes refused meanwhile\)$/);
    failures.succeeded("commit");
    assert.is(lines.length, 2, "a success outside an episode says nothing");

    failures.failed("checkpoint", new Error("no space left on device"));
    failures.succeeded("checkpoint");
    assert.is(lines.length, 4, "a new episode: its own two lines");
    assert.match(lines[3], /\(0 changes refused meanwhile\)/);
  } finally {
    dir.remove();
  }
});

test("an episode's writes are tried again only after a delay; outside one always", () => {
  const dir = tempDir();
  try {
    const failures = new WriteFailures("shard 0", dir.path, () => {});
    assert.is(failures.mayTry(1), true);
    failures.failed("commit", EIO);
    assert.is(failures.mayTry(1), false, "within the first second after the failure");
  } finally {
    dir.remove();
  }
});

test.run();
