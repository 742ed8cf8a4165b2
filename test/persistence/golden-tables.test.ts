// Golden bytes of the tables (LMDB): the value stored for a project, a channel, a check, a ping with
// its body, two flips and a notification in the outbox, with each table's shared msgpack structures
// (the field names its records refer to by number). A fresh store given the fixed values
// (test/golden-values.ts) must store exactly these bytes, and a store holding these bytes must read
// back the values: the tables of one build are opened by the next, so their format changes only on purpose.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Key } from "lmdb";
import { open } from "lmdb";
import { openStore } from "../../persistence/store.ts";
import type { Changes } from "../../engine/changes.ts";
import {
  BODY,
  CHANNEL,
  CHECK,
  CHECK_UUID,
  DOWN_FLIP,
  FLIP,
  fromHex,
  OUTBOX_ENTRY,
  PING_RECORD,
  PING_WRITE,
  PROJECT,
  PROJECT_ID,
  toHex,
} from "../golden-values.ts";
import { tempDir } from "../helpers.ts";

const STRUCTURES = Symbol.for("structures"); // where lmdb-js keeps a table's shared structures
const TABLES = ["projects", "channels", "checks", "pings", "bodies", "flips", "outbox", "meta"] as const;

/** [table, key, value] of every entry the fixed values leave in the tables (meta: the schema version, msgpack 2). */
const ENTRIES: [table: string, key: Key, hex: string][] = [
  [
    "projects",
    "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9",
    `
      40d92430663165326433632d346235612d343937382d383639352d613462336332643165306639a74261636b757073bf
      72772d6b65792d303132333435363738396162636465663031323334353637bf726f2d6b65792d303132333435363738
      396162636465663031323334353637b870696e676b65792d30313233343536373839616263646566aa62616467652d30
      31323314cc64cd2710cb4279b76daa800000
    `,
  ],
  [
    "channels",
    ["0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "0a0b0c0d-0e0f-4a1b-8c2d-3e4f5a6b7c8d"],
    `
      40d92430613062306330642d306530662d346131622d386332642d336534663561366237633864d92430663165326433
      632d346235612d343937382d383639352d613462336332643165306639a36f7073a5656d61696c41a5656d61696caf6f
      7073406578616d706c652e636f6dcb4279b76daa800000
    `,
  ],
  [
    "checks",
    ["0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9", "c0ffee00-1234-4567-89ab-cdef01234567"],
    `
      40d92463306666656530302d313233342d343536372d383961622d636465663031323334353637d92430663165326433
      632d346235612d343937382d383639352d613462336332643165306639d92462346436653030302d303030302d343030
      302d383030302d303030303030303030303031a76e696768746c79a76e696768746c79a770726f64206462a0a673696d
      706c65ce05265c00ce0036ee80a92a202a202a202a202aa3555443c2a0a0a0a0c2c2c2c291d92430613062306330642d
      306530662d346131622d386332642d336534663561366237633864cb4279b76daa800000a275700101cb4279b76db926
      0000c0c0c0d40000d40000d40000d40000d40000d40000d40000d40000d40000d40000d40000
    `,
  ],
  [
    "pings",
    ["c0ffee00-1234-4567-89ab-cdef01234567", 1],
    `
      924001cb4279b76db9260000a773756363657373a56874747073a93139322e302e322e37a4504f5354aa6375726c2f38
      2e352e30d92430626164633064652d303030302d343030302d383030302d3030303030303030303030320002c4026f6b
    `,
  ],
  [
    "flips",
    ["c0ffee00-1234-4567-89ab-cdef01234567", 1767225660000, 1],
    `
      40d92463306666656530302d313233342d343536372d383961622d63646566303132333435363701cb4279b76db92600
      00a36e6577a27570a0c2
    `,
  ],
  [
    "flips",
    ["c0ffee00-1234-4567-89ab-cdef01234567", 1767315660000, 2],
    `
      40d92463306666656530302d313233342d343536372d383961622d63646566303132333435363702cb4279b7c38dce00
      00a27570a4646f776ea0c3
    `,
  ],
  [
    "outbox",
    "001767315660000-c0ffee00-1234-4567-89ab-cdef01234567-2-0a0b0c0d-0e0f-4a1b-8c2d-3e4f5a6b7c8d",
    `
      40d95b3030313736373331353636303030302d63306666656530302d313233342d343536372d383961622d6364656630
      313233343536372d322d30613062306330642d306530662d346131622d386332642d336534663561366237633864d924
      30663165326433632d346235612d343937382d383639352d61346233633264316530663941d92463306666656530302d
      313233342d343536372d383961622d636465663031323334353637a76e696768746c79a76e696768746c79a770726f64
      206462a0a673696d706c65ce05265c00a92a202a202a202a202aa355544301cb4279b76daa80000042d9246330666665
      6530302d313233342d343536372d383961622d63646566303132333435363702cb4279b7c38dce0000a27570a4646f77
      6ea0c343d92430613062306330642d306530662d346131622d386332642d336534663561366237633864a36f7073a565
      6d61696c44a5656d61696caf6f7073406578616d706c652e636f6d4501cb4279b76db9260000a773756363657373a568
      74747073a93139322e302e322e37a4504f5354aa6375726c2f382e352e30d92430626164633064652d303030302d3430
      30302d383030302d3030303030303030303030320002c4026f6ba74261636b757073c000cb4279b7c38dce0000c0
    `,
  ],
  ["meta", "schema", "02"],
];

/** Each table's shared structures: a msgpack array of the field lists its records use, in the order first seen. */
const SHARED: Record<string, string> = {
  projects: `
    919aa26964a46e616d65a66170694b6579ae6170694b6579526561646f6e6c79a770696e674b6579a862616467654b65
    79aa636865636b4c696d6974ac70696e674c6f674c696d6974ad70696e67426f64794c696d6974a96372656174656441
    74
  `,
  channels: `
    9296a26964a970726f6a6563744964a46e616d65a46b696e64a576616c7565a963726561746564417492a46b696e64a7
    61646472657373
  `,
  checks: `
    91dc0029a475756964a970726f6a6563744964a862616467654b6579a46e616d65a4736c7567a474616773a464657363
    a46b696e64a974696d656f75744d73a767726163654d73a87363686564756c65a2747aac6d616e75616c526573756d65
    a76d6574686f6473a773746172744b77a9737563636573734b77a96661696c7572654b77ad66696c7465725375626a65
    6374aa66696c746572426f6479ae66696c74657248747470426f6479b166696c74657244656661756c744661696ca863
    68616e6e656c73a9637265617465644174a6737461747573a66e50696e6773a66e466c697073aa6c61737450696e6741
    74ab6c61737453746172744174ac6c6173745374617274526964ae6c6173744475726174696f6e4d73b06661696c7572
    655468726573686f6c64b272656d696e646572496e74657276616c4d73ac6d75746564556e74696c4174ad6d61784475
    726174696f6e4d73a9646570656e64734f6ead6d696e4475726174696f6e4d73ae616c6572744f6e4f7665726c6170b0
    6d617852756e73506572506572696f64aa657363616c6174696f6ea5616c657274a970757368546f6b656e
  `,
  pings: `
    919aa16ea26174a46b696e64a6736368656d65aa72656d6f746541646472a66d6574686f64a27561a3726964aa657869
    74537461747573a8626f647953697a65
  `,
  flips: "9197a9636865636b55756964a16ea26174a466726f6da2746fa6726561736f6ea66e6f74696679",
  outbox: `
    969ca26964a970726f6a6563744964a5636865636ba4666c6970a76368616e6e656ca86c61737450696e67ac6c617374
    50696e67426f6479ab70726f6a6563744e616d65ab646f776e53696e63654174a8617474656d707473ad6e6578744174
    74656d70744174a96c6173744572726f729ba475756964a46e616d65a4736c7567a474616773a464657363a46b696e64
    a974696d656f75744d73a87363686564756c65a2747aa66e50696e6773a963726561746564417497a9636865636b5575
    6964a16ea26174a466726f6da2746fa6726561736f6ea66e6f7469667994a26964a46e616d65a46b696e64a576616c75
    6592a46b696e64a7616464726573739aa16ea26174a46b696e64a6736368656d65aa72656d6f746541646472a66d6574
    686f64a27561a3726964aa65786974537461747573a8626f647953697a65
  `,
};

const none = {
  projects: [],
  channels: [],
  checks: [],
  deletedChecks: [],
  deletedChannels: [],
  pings: [],
  flips: [],
  outbox: [],
} satisfies Changes;

/** Plain Uint8Arrays for Buffers (msgpack decodes bytes as Buffers; the values hold Uint8Arrays). */
function plain<T>(value: T): T {
  if (value instanceof Uint8Array) return new Uint8Array(value) as T;
  if (Array.isArray(value)) return value.map(plain) as T;
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)])) as T;
  return value;
}

test("a fresh store writes exactly these bytes for the fixed values", async () => {
  const dir = tempDir();
  try {
    const store = await openStore(dir.path, { durability: "flush" });
    await store.commit({
      ...none,
      projects: [PROJECT],
      channels: [CHANNEL],
      checks: [CHECK],
      pings: [PING_WRITE],
      flips: [FLIP, DOWN_FLIP],
      outbox: [OUTBOX_ENTRY],
    });
    await store.checkpoint();
    await store.close();
    const env = open(dir.path, { maxDbs: 16, readOnly: true });
    try {
      const found: [string, Key, string][] = [];
      const shared: Record<string, string> = {};
      for (const name of TABLES) {
        const db = env.openDB<Uint8Array, Key>(name, { encoding: "binary" });
        for (const { key, value } of db.getRange({ start: "" })) {
          if (name === "meta" && Array.isArray(key) && key[0] === "checkpointed") continue; // a writer's random id
          found.push([name, key, toHex(value)]);
        }
        const structures = db.get(STRUCTURES);
        if (structures !== undefined) shared[name] = toHex(structures);
      }
      assert.equal(
        found,
        ENTRIES.map(([name, key, hex]) => [name, key, toHex(fromHex(hex))]),
      );
      assert.equal(shared, Object.fromEntries(Object.entries(SHARED).map(([name, hex]) => [name, toHex(fromHex(hex))])));
    } finally {
      await env.close();
    }
  } finally {
    dir.remove();
  }
});

test("a store holding these bytes reads back the fixed values", async () => {
  const dir = tempDir();
  try {
    const env = open(dir.path, { maxDbs: 16 });
    for (const name of TABLES) {
      const db = env.openDB<Uint8Array, Key>(name, { encoding: "binary" });
      if (SHARED[name] !== undefined) await db.put(STRUCTURES, fromHex(SHARED[name]));
      for (const [table, key, hex] of ENTRIES) if (table === name) await db.put(key, fromHex(hex));
    }
    await env.close();

    const store = await openStore(dir.path, { durability: "flush" });
    try {
      assert.equal(store.loadProjects(), [PROJECT]);
      assert.equal(store.loadChannels(PROJECT_ID), [CHANNEL]);
      assert.equal(store.loadChecks(PROJECT_ID), [CHECK]);
      assert.equal(store.pingPage(CHECK_UUID, 10), [PING_RECORD]);
      assert.equal(plain(store.pingBody(CHECK_UUID, 1)), BODY);
      assert.equal(store.flips(CHECK_UUID, {}), [DOWN_FLIP, FLIP], "newest first");
      assert.equal(plain(store.outboxAll()), [OUTBOX_ENTRY]);
    } finally {
      await store.close();
    }
  } finally {
    dir.remove();
  }
});

test("a check stored before the run rules and escalation reads back with them unset", async () => {
  // the check's value and the checks table's shared structures as the build before the run rules wrote them
  const entry = `
      40d92463306666656530302d313233342d343536372d383961622d636465663031323334353637d92430663165326433
      632d346235612d343937382d383639352d613462336332643165306639d92462346436653030302d303030302d343030
      302d383030302d303030303030303030303031a76e696768746c79a76e696768746c79a770726f64206462a0a673696d
      706c65ce05265c00ce0036ee80a92a202a202a202a202aa3555443c2a0a0a0a0c2c2c2c291d92430613062306330642d
      306530662d346131622d386332642d336534663561366237633864cb4279b76daa800000a275700101cb4279b76db926
      0000c0c0c0d40000d40000d40000d40000d40000d40000d40000
    `;
  const shared = `
    91dc0025a475756964a970726f6a6563744964a862616467654b6579a46e616d65a4736c7567a474616773a464657363
    a46b696e64a974696d656f75744d73a767726163654d73a87363686564756c65a2747aac6d616e75616c526573756d65
    a76d6574686f6473a773746172744b77a9737563636573734b77a96661696c7572654b77ad66696c7465725375626a65
    6374aa66696c746572426f6479ae66696c74657248747470426f6479b166696c74657244656661756c744661696ca863
    68616e6e656c73a9637265617465644174a6737461747573a66e50696e6773a66e466c697073aa6c61737450696e6741
    74ab6c61737453746172744174ac6c6173745374617274526964ae6c6173744475726174696f6e4d73b06661696c7572
    655468726573686f6c64b272656d696e646572496e74657276616c4d73ac6d75746564556e74696c4174ad6d61784475
    726174696f6e4d73a9646570656e64734f6ea5616c657274a970757368546f6b656e
  `;
  const dir = tempDir();
  try {
    const env = open(dir.path, { maxDbs: 16 });
    const projects = env.openDB<Uint8Array, Key>("projects", { encoding: "binary" });
    await projects.put(STRUCTURES, fromHex(SHARED.projects));
    const [, projectKey, projectHex] = ENTRIES[0];
    await projects.put(projectKey, fromHex(projectHex));
    const checks = env.openDB<Uint8Array, Key>("checks", { encoding: "binary" });
    await checks.put(STRUCTURES, fromHex(shared));
    await checks.put([PROJECT_ID, CHECK_UUID], fromHex(entry));
    await env.openDB<Uint8Array, Key>("meta", { encoding: "binary" }).put("schema", fromHex("02"));
    await env.close();
    const store = await openStore(dir.path, { durability: "flush" });
    try {
      const { minDurationMs: _n, alertOnOverlap: _o, maxRunsPerPeriod: _r, escalation: _e, ...before } = CHECK;
      assert.equal(store.loadChecks(PROJECT_ID), [before]);
    } finally {
      await store.close();
    }
  } finally {
    dir.remove();
  }
});

test("a check stored before push tokens and the run rules reads back with neither", async () => {
  // the check's value and the checks table's shared structures as the build before push tokens wrote them
  const entry = `
      40d92463306666656530302d313233342d343536372d383961622d636465663031323334353637d92430663165326433
      632d346235612d343937382d383639352d613462336332643165306639d92462346436653030302d303030302d343030
      302d383030302d303030303030303030303031a76e696768746c79a76e696768746c79a770726f64206462a0a673696d
      706c65ce05265c00ce0036ee80a92a202a202a202a202aa3555443c2a0a0a0a0c2c2c2c291d92430613062306330642d
      306530662d346131622d386332642d336534663561366237633864cb4279b76daa800000a275700101cb4279b76db926
      0000c0c0c0d40000d40000d40000d40000d40000d40000
    `;
  const shared = `
    91dc0024a475756964a970726f6a6563744964a862616467654b6579a46e616d65a4736c7567a474616773a464657363
    a46b696e64a974696d656f75744d73a767726163654d73a87363686564756c65a2747aac6d616e75616c526573756d65
    a76d6574686f6473a773746172744b77a9737563636573734b77a96661696c7572654b77ad66696c7465725375626a65
    6374aa66696c746572426f6479ae66696c74657248747470426f6479b166696c74657244656661756c744661696ca863
    68616e6e656c73a9637265617465644174a6737461747573a66e50696e6773a66e466c697073aa6c61737450696e6741
    74ab6c61737453746172744174ac6c6173745374617274526964ae6c6173744475726174696f6e4d73b06661696c7572
    655468726573686f6c64b272656d696e646572496e74657276616c4d73ac6d75746564556e74696c4174ad6d61784475
    726174696f6e4d73a9646570656e64734f6ea5616c657274
  `;
  const dir = tempDir();
  try {
    const env = open(dir.path, { maxDbs: 16 });
    const projects = env.openDB<Uint8Array, Key>("projects", { encoding: "binary" });
    await projects.put(STRUCTURES, fromHex(SHARED.projects));
    const [, projectKey, projectHex] = ENTRIES[0];
    await projects.put(projectKey, fromHex(projectHex));
    const checks = env.openDB<Uint8Array, Key>("checks", { encoding: "binary" });
    await checks.put(STRUCTURES, fromHex(shared));
    await checks.put([PROJECT_ID, CHECK_UUID], fromHex(entry));
    await env.openDB<Uint8Array, Key>("meta", { encoding: "binary" }).put("schema", fromHex("02"));
    await env.close();
    const store = await openStore(dir.path, { durability: "flush" });
    try {
      const { pushToken: _p, minDurationMs: _n, alertOnOverlap: _o, maxRunsPerPeriod: _r, escalation: _e, ...before } = CHECK;
      assert.equal(store.loadChecks(PROJECT_ID), [before]);
    } finally {
      await store.close();
    }
  } finally {
    dir.remove();
  }
});

test("a check stored before max_duration and depends_on reads back with them unset", async () => {
  // the check's value and the checks table's shared structures as the build before them wrote them
  const entry = `
      40d92463306666656530302d313233342d343536372d383961622d636465663031323334353637d92430663165326433
      632d346235612d343937382d383639352d613462336332643165306639d92462346436653030302d303030302d343030
      302d383030302d303030303030303030303031a76e696768746c79a76e696768746c79a770726f64206462a0a673696d
      706c65ce05265c00ce0036ee80a92a202a202a202a202aa3555443c2a0a0a0a0c2c2c2c291d92430613062306330642d
      306530662d346131622d386332642d336534663561366237633864cb4279b76daa800000a275700101cb4279b76db926
      0000c0c0c0d40000d40000d40000d40000
    `;
  const shared = `
    91dc0022a475756964a970726f6a6563744964a862616467654b6579a46e616d65a4736c7567a474616773a464657363
    a46b696e64a974696d656f75744d73a767726163654d73a87363686564756c65a2747aac6d616e75616c526573756d65
    a76d6574686f6473a773746172744b77a9737563636573734b77a96661696c7572654b77ad66696c7465725375626a65
    6374aa66696c746572426f6479ae66696c74657248747470426f6479b166696c74657244656661756c744661696ca863
    68616e6e656c73a9637265617465644174a6737461747573a66e50696e6773a66e466c697073aa6c61737450696e6741
    74ab6c61737453746172744174ac6c6173745374617274526964ae6c6173744475726174696f6e4d73b06661696c7572
    655468726573686f6c64b272656d696e646572496e74657276616c4d73ac6d75746564556e74696c4174a5616c657274
  `;
  const dir = tempDir();
  try {
    const env = open(dir.path, { maxDbs: 16 });
    const projects = env.openDB<Uint8Array, Key>("projects", { encoding: "binary" });
    await projects.put(STRUCTURES, fromHex(SHARED.projects));
    const [, projectKey, projectHex] = ENTRIES[0];
    await projects.put(projectKey, fromHex(projectHex));
    const checks = env.openDB<Uint8Array, Key>("checks", { encoding: "binary" });
    await checks.put(STRUCTURES, fromHex(shared));
    await checks.put([PROJECT_ID, CHECK_UUID], fromHex(entry));
    await env.openDB<Uint8Array, Key>("meta", { encoding: "binary" }).put("schema", fromHex("02"));
    await env.close();
    const store = await openStore(dir.path, { durability: "flush" });
    try {
      const {
        maxDurationMs: _m,
        dependsOn: _d,
        pushToken: _p,
        minDurationMs: _n,
        alertOnOverlap: _o,
        maxRunsPerPeriod: _r,
        escalation: _e,
        ...before
      } = CHECK;
      assert.equal(store.loadChecks(PROJECT_ID), [before]);
    } finally {
      await store.close();
    }
  } finally {
    dir.remove();
  }
});

test.run();
