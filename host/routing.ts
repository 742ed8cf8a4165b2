// Which shard owns a project, and the hash that decides it (a cluster's partitions use the same one).
// Keyed by project id only, so SHARDS may change between restarts.

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const utf8 = new TextEncoder();

/**
 * 32-bit FNV-1a of the string's UTF-8 bytes, as an unsigned integer: stable across processes, Node
 * versions and machines. Project ids are ASCII, whose characters are their UTF-8 bytes: those are hashed
 * without encoding (a ping's hot path); any other text is encoded first.
 */
export function fnv1a32(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return fnv1a32Bytes(utf8.encode(text));
    hash ^= code;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

function fnv1a32Bytes(bytes: Uint8Array): number {
  let hash = FNV_OFFSET;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** Returns the shard index (0 ≤ index < count) owning `projectId`. */
export function shardOf(projectId: string, count: number): number {
  return fnv1a32(projectId) % count;
}
