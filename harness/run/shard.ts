/**
 * Sharding a run across CI runners (`--shard i/n`), as Playwright and vitest shard: every runner
 * gets the same selection, orders it the same stable way and keeps its own contiguous part, so
 * the n shards together run each selected scenario exactly once and sizes differ by at most one.
 * The order is by a hash of the id (FNV-1a), so an area's scenarios spread over the shards
 * instead of all landing on one runner (the browser area, say).
 */

export interface Shard {
  /** 1-based, as on the command line. */
  index: number;
  total: number;
}

/** `i/n` with 1 ≤ i ≤ n; throws a message that names the form. */
export function parseShard(value: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = Number(match?.[1]);
  const total = Number(match?.[2]);
  if (!match || total < 1 || index < 1 || index > total || total > 10_000) {
    throw new Error(`--shard must be i/n with 1 ≤ i ≤ n, e.g. 2/4, not "${value}"`);
  }
  return { index, total };
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** The shard's part of `items` (by `id`), in their original order. */
export function shardOf<T extends { id: string }>(items: readonly T[], shard: Shard): T[] {
  const order = [...items].sort((a, b) => fnv1a(a.id) - fnv1a(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const from = Math.floor(((shard.index - 1) * order.length) / shard.total);
  const to = Math.floor((shard.index * order.length) / shard.total);
  const mine = new Set(order.slice(from, to).map((item) => item.id));
  return items.filter((item) => mine.has(item.id));
}
