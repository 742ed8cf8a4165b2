// Which partition a project belongs to. In cluster mode each partition has one owning node at a time and
// its own command log, so a project's commands are applied in one order by one node. The count is fixed
// for the life of a cluster: changing it would move projects between partitions (their logs and
// snapshots with them), so it is a setting chosen once, not something nodes negotiate.
//
// The hash is 32-bit FNV-1a over the id's UTF-8 bytes: stable across processes, Node versions and
// machines (unlike anything seeded), cheap, and spreads uuid-shaped ids evenly enough for 16-256
// partitions (test/cluster/partitions.test.ts measures the spread).

/** The partition count a cluster uses unless configured otherwise. */
export const DEFAULT_PARTITION_COUNT = 64;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const utf8 = new TextEncoder();

/** 32-bit FNV-1a of the string's UTF-8 bytes, as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (const byte of utf8.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** The partition (0 ≤ p < count) that owns the project with this id. */
export function partitionOf(projectId: string, count: number = DEFAULT_PARTITION_COUNT): number {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`partition count must be a positive integer, not ${count}`);
  return fnv1a32(projectId) % count;
}
