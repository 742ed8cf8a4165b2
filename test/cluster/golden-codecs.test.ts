// Golden bytes of the cluster's stored and wire formats: a partition's command records, snapshot and
// snapshot head (cluster/partition-codec.ts), a notification of the shared outbox stream
// (cluster/notification-stream.ts), a lease (cluster/leases.ts), a project of the replicated directory
// (cluster/directory-keys.ts), the messages of a partition's history (cluster/partition-history.ts) and
// the requests to a partition's owner with their answers (cluster/partition-rpc.ts).
// Nodes of different builds read each other's messages, and the streams outlive every build: each fixed
// value (test/golden-values.ts) must encode to the bytes written here, and those bytes must decode to it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { PartitionRecord, PartitionSnapshot, SnapshotHead } from "../../cluster/partition-codec.ts";
import { decodeRecord, decodeSnapshot, decodeSnapshotHead, encodeRecord, encodeSnapshot, encodeSnapshotHead } from "../../cluster/partition-codec.ts";
import { decodeEntry, encodeEntry } from "../../cluster/notification-stream.ts";
import { decodeLease, encodeLease } from "../../cluster/leases.ts";
import { decodeFlip, decodePing, encodeDeletedMessage, encodeFlipMessage, encodePingMessage } from "../../cluster/partition-history.ts";
import { decodeReply, decodeRequest, encodeReply, encodeRequest } from "../../cluster/partition-rpc.ts";
import type { Reply } from "../../cluster/partition-rpc.ts";
import type { HostRequest } from "../../host/shard-host.ts";
import { unpack } from "msgpackr";
import { decodeBadgeKey, decodeProject, encodeBadgeKey, encodeProject } from "../../cluster/directory-keys.ts";
import { AT, BODY, CHANNEL, CHECK, CHECK_UUID, DOWN_FLIP, fromHex, OUTBOX_ENTRY, PING_COMMAND, PING_RECORD, PROJECT, PROJECT_ID, toHex } from "../golden-values.ts";

/** Asserts that `bytes` are the hex written in the test. */
function same(bytes: Uint8Array, hex: string, what: string): void {
  assert.is(toHex(bytes), toHex(fromHex(hex)), what);
}

test("a partition's ping record: [1, the command, the ids it hands out]", () => {
  const record: PartitionRecord = { command: { kind: "ping", ping: PING_COMMAND }, ids: [] };
  const hex = `
    9301d4724092a46b696e64a470696e67a470696e67d472419aa6746172676574a67369676e616caa6578697453746174
    7573a66d6574686f64a6736368656d65aa72656d6f746541646472a27561a3726964a4626f6479a26174d4724291a475
    756964d92463306666656530302d313233342d343536372d383961622d636465663031323334353637a7737563636573
    7300a4504f5354a56874747073a93139322e302e322e37aa6375726c2f382e352e30d92430626164633064652d303030
    302d343030302d383030302d303030303030303030303032c4026f6bcb4279b76db926000090
  `;
  same(encodeRecord(record), hex, "ping record");
  assert.equal(decodeRecord(fromHex(hex)), record);
});

test("a partition's record of a new check, with the uuid and badge key it hands out", () => {
  const record: PartitionRecord = {
    command: { kind: "createCheck", projectId: PROJECT_ID, spec: { name: "nightly", timeoutMs: 86_400_000 }, unique: [], at: AT },
    ids: [CHECK_UUID, CHECK.badgeKey],
  };
  const hex = `
    9301d4724095a46b696e64a970726f6a6563744964a473706563a6756e69717565a26174ab637265617465436865636b
    d92430663165326433632d346235612d343937382d383639352d613462336332643165306639d4724192a46e616d65a9
    74696d656f75744d73a76e696768746c79ce05265c0090cb4279b76daa80000092d92463306666656530302d31323334
    2d343536372d383961622d636465663031323334353637d92462346436653030302d303030302d343030302d38303030
    2d303030303030303030303031
  `;
  same(encodeRecord(record), hex, "createCheck record");
  assert.equal(decodeRecord(fromHex(hex)), record);
});

test("a partition snapshot: [2, at, [[project, channels, checks], ...]]", () => {
  const snapshot: PartitionSnapshot = { at: AT + 60_000, projects: [{ project: PROJECT, channels: [CHANNEL], checks: [CHECK] }] };
  const hex = `
    9302cb4279b76db92600009193d472409aa26964a46e616d65a66170694b6579ae6170694b6579526561646f6e6c79a7
    70696e674b6579a862616467654b6579aa636865636b4c696d6974ac70696e674c6f674c696d6974ad70696e67426f64
    794c696d6974a9637265617465644174d92430663165326433632d346235612d343937382d383639352d613462336332
    643165306639a74261636b757073bf72772d6b65792d303132333435363738396162636465663031323334353637bf72
    6f2d6b65792d303132333435363738396162636465663031323334353637b870696e676b65792d303132333435363738
    39616263646566aa62616467652d3031323314cc64cd2710cb4279b76daa80000091d4724196a26964a970726f6a6563
    744964a46e616d65a46b696e64a576616c7565a9637265617465644174d92430613062306330642d306530662d346131
    622d386332642d336534663561366237633864d92430663165326433632d346235612d343937382d383639352d613462
    336332643165306639a36f7073a5656d61696cd4724292a46b696e64a761646472657373a5656d61696caf6f70734065
    78616d706c652e636f6dcb4279b76daa80000091d47243dc0022a475756964a970726f6a6563744964a862616467654b
    6579a46e616d65a4736c7567a474616773a464657363a46b696e64a974696d656f75744d73a767726163654d73a87363
    686564756c65a2747aac6d616e75616c526573756d65a76d6574686f6473a773746172744b77a9737563636573734b77
    a96661696c7572654b77ad66696c7465725375626a656374aa66696c746572426f6479ae66696c74657248747470426f
    6479b166696c74657244656661756c744661696ca86368616e6e656c73a9637265617465644174a6737461747573a66e
    50696e6773a66e466c697073aa6c61737450696e674174ab6c61737453746172744174ac6c6173745374617274526964
    ae6c6173744475726174696f6e4d73b06661696c7572655468726573686f6c64b272656d696e646572496e7465727661
    6c4d73ac6d75746564556e74696c4174a5616c657274d92463306666656530302d313233342d343536372d383961622d
    636465663031323334353637d92430663165326433632d346235612d343937382d383639352d61346233633264316530
    6639d92462346436653030302d303030302d343030302d383030302d303030303030303030303031a76e696768746c79
    a76e696768746c79a770726f64206462a0a673696d706c65ce05265c00ce0036ee80a92a202a202a202a202aa3555443
    c2a0a0a0a0c2c2c2c291d92430613062306330642d306530662d346131622d386332642d336534663561366237633864
    cb4279b76daa800000a275700101cb4279b76db9260000c0c0c0d40000d40000d40000d40000
  `;
  same(encodeSnapshot(snapshot), hex, "snapshot");
  assert.equal(decodeSnapshot(fromHex(hex)), snapshot);
});

test("a snapshot head: [3, log sequence, first chunk, chunks, bytes]", () => {
  const head: SnapshotHead = { logSequence: 1234, firstChunk: 56, chunks: 3, bytes: 300_000 };
  const hex = "9503cd04d23803ce000493e0";
  same(encodeSnapshotHead(head), hex, "snapshot head");
  assert.equal(decodeSnapshotHead(fromHex(hex)), head);
  assert.throws(() => decodeRecord(fromHex(hex)), /not a partition command record/, "a head is not read as a command");
});

test("a notification on the outbox stream: [record id, the entry]", () => {
  const hex = `
    9201d472409ca26964a970726f6a6563744964a5636865636ba4666c6970a76368616e6e656ca86c61737450696e67ac
    6c61737450696e67426f6479ab70726f6a6563744e616d65ab646f776e53696e63654174a8617474656d707473ad6e65
    7874417474656d70744174a96c6173744572726f72d95b3030313736373331353636303030302d63306666656530302d
    313233342d343536372d383961622d6364656630313233343536372d322d30613062306330642d306530662d34613162
    2d386332642d336534663561366237633864d92430663165326433632d346235612d343937382d383639352d61346233
    6332643165306639d472419ba475756964a46e616d65a4736c7567a474616773a464657363a46b696e64a974696d656f
    75744d73a87363686564756c65a2747aa66e50696e6773a9637265617465644174d92463306666656530302d31323334
    2d343536372d383961622d636465663031323334353637a76e696768746c79a76e696768746c79a770726f64206462a0
    a673696d706c65ce05265c00a92a202a202a202a202aa355544301cb4279b76daa800000d4724297a9636865636b5575
    6964a16ea26174a466726f6da2746fa6726561736f6ea66e6f74696679d92463306666656530302d313233342d343536
    372d383961622d63646566303132333435363702cb4279b7c38dce0000a27570a4646f776ea0c3d4724394a26964a46e
    616d65a46b696e64a576616c7565d92430613062306330642d306530662d346131622d386332642d3365346635613662
    37633864a36f7073a5656d61696cd4724492a46b696e64a761646472657373a5656d61696caf6f7073406578616d706c
    652e636f6dd472459aa16ea26174a46b696e64a6736368656d65aa72656d6f746541646472a66d6574686f64a27561a3
    726964aa65786974537461747573a8626f647953697a6501cb4279b76db9260000a773756363657373a56874747073a9
    3139322e302e322e37a4504f5354aa6375726c2f382e352e30d92430626164633064652d303030302d343030302d3830
    30302d3030303030303030303030320002c4026f6ba74261636b757073c000cb4279b7c38dce0000c0
  `;
  same(encodeEntry(OUTBOX_ENTRY), hex, "outbox entry");
  assert.equal(decodeEntry(fromHex(hex)), OUTBOX_ENTRY);
});

test("a lease and a directory project are JSON, a check's badge key plain UTF-8", () => {
  const lease = { node: "node-1", writtenAt: AT, expiresAt: AT + 6_000 };
  const leaseHex = `
    7b226e6f6465223a226e6f64652d31222c227772697474656e4174223a313736373232353630303030302c2265787069
    7265734174223a313736373232353630363030307d
  `;
  same(encodeLease(lease), leaseHex, "lease");
  assert.equal(decodeLease(fromHex(leaseHex)), lease);
  const projectHex = `
    7b226964223a2230663165326433632d346235612d343937382d383639352d613462336332643165306639222c226e61
    6d65223a224261636b757073222c226170694b6579223a2272772d6b65792d3031323334353637383961626364656630
    31323334353637222c226170694b6579526561646f6e6c79223a22726f2d6b65792d3031323334353637383961626364
    65663031323334353637222c2270696e674b6579223a2270696e676b65792d3031323334353637383961626364656622
    2c2262616467654b6579223a2262616467652d30313233222c22636865636b4c696d6974223a32302c2270696e674c6f
    674c696d6974223a3130302c2270696e67426f64794c696d6974223a31303030302c22637265617465644174223a3137
    36373232353630303030307d
  `;
  same(encodeProject(PROJECT), projectHex, "directory project");
  assert.equal(decodeProject(fromHex(projectHex)), PROJECT);
  same(encodeBadgeKey("badge-0123"), "62616467652d30313233", "badge key");
  assert.is(decodeBadgeKey(fromHex("62616467652d30313233")), "badge-0123");
});

test("a partition's history: a ping [1, record, body], a flip [2, flip], a deleted check [3, uuid]", () => {
  const pingHex = `
    9301d472409aa16ea26174a46b696e64a6736368656d65aa72656d6f746541646472a66d6574686f64a27561a3726964
    aa65786974537461747573a8626f647953697a6501cb4279b76db9260000a773756363657373a56874747073a9313932
    2e302e322e37a4504f5354aa6375726c2f382e352e30d92430626164633064652d303030302d343030302d383030302d
    3030303030303030303030320002c4026f6b
  `;
  same(encodePingMessage(PING_RECORD, BODY), pingHex, "ping message");
  assert.equal(decodePing(fromHex(pingHex)), { record: PING_RECORD, body: BODY });
  const flipHex = `
    9202d4724097a9636865636b55756964a16ea26174a466726f6da2746fa6726561736f6ea66e6f74696679d924633066
    66656530302d313233342d343536372d383961622d63646566303132333435363702cb4279b7c38dce0000a27570a464
    6f776ea0c3
  `;
  same(encodeFlipMessage(DOWN_FLIP), flipHex, "flip message");
  assert.equal(decodeFlip(fromHex(flipHex)), DOWN_FLIP);
  assert.throws(() => decodeFlip(fromHex(pingHex)), /not a history flip message/);
  const deletedHex = "9203d92463306666656530302d313233342d343536372d383961622d636465663031323334353637";
  same(encodeDeletedMessage(CHECK_UUID), deletedHex, "deleted message");
  assert.equal(unpack(fromHex(deletedHex)), [3, CHECK_UUID]); // read by its subject only: no decoder of its own
});

test("a request to a partition's owner and its answers: the HostRequest and the Reply as msgpack", () => {
  const request: HostRequest = { kind: "pingBatch", pings: [PING_COMMAND] };
  const requestHex = `
    d4724092a46b696e64a570696e6773a970696e67426174636891d472419aa6746172676574a67369676e616caa657869
    74537461747573a66d6574686f64a6736368656d65aa72656d6f746541646472a27561a3726964a4626f6479a26174d4
    724291a475756964d92463306666656530302d313233342d343536372d383961622d636465663031323334353637a773
    75636365737300a4504f5354a56874747073a93139322e302e322e37aa6375726c2f382e352e30d92430626164633064
    652d303030302d343030302d383030302d303030303030303030303032c4026f6bcb4279b76db9260000
  `;
  same(encodeRequest(request), requestHex, "request");
  const decoded = decodeRequest(fromHex(requestHex)) as Extract<HostRequest, { kind: "pingBatch" }>;
  assert.equal({ ...decoded, pings: decoded.pings.map((p) => ({ ...p, body: p.body && new Uint8Array(p.body) })) }, request);

  const answer: Reply = { ok: true, value: [{ ok: true, value: { checkUuid: CHECK_UUID, created: false, badgeKey: CHECK.badgeKey } }] };
  const answerHex = `
    d4724092a26f6ba576616c7565c39140c3d4724193a9636865636b55756964a763726561746564a862616467654b6579
    d92463306666656530302d313233342d343536372d383961622d636465663031323334353637c2d92462346436653030
    302d303030302d343030302d383030302d303030303030303030303031
  `;
  same(encodeReply(answer), answerHex, "answer");
  assert.equal(decodeReply(fromHex(answerHex)), answer);

  const refusal: Reply = { ok: false, name: "NotOwnerError", message: "partition 3: not the owner" };
  const refusalHex = `
    d4724093a26f6ba46e616d65a76d657373616765c2ad4e6f744f776e65724572726f72ba706172746974696f6e20333a
    206e6f7420746865206f776e6572
  `;
  same(encodeReply(refusal), refusalHex, "refusal");
  assert.equal(decodeReply(fromHex(refusalHex)), refusal);
});

test.run();
