// Which shard owns a project. Keyed by project id only, so SHARDS may change between restarts.

/** Returns the shard index (0 ≤ index < count) owning `projectId` (FNV-1a of the id). */
export function shardOf(projectId: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < projectId.length; i++) {
    hash ^= projectId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}
