/**
 * An in-memory storage adapter for oidc-provider: one unbounded store per provider, and an atomic
 * `consume`.
 *
 * Why not oidc-provider's bundled MemoryAdapter (documented as a development-only quick start):
 * its store is an LRU capped at 1000 entries, so a long conformance run could have live codes,
 * sessions or grants evicted under it. This store keeps everything until it expires.
 *
 * Atomic consume: oidc-provider reads a code or refresh token, checks its `consumed` flag, awaits
 * other lookups, then calls `adapter.consume(id)`; with a networked store, parallel redemptions
 * could all pass the check before the first consume, which is why real adapters make consume a
 * conditional update. Here the check and the set are one synchronous step, and the loser of a
 * race is refused the way oidc-provider refuses a sequential replay: the grant's tokens and the
 * grant are revoked and the request gets invalid_grant. (With in-memory storage there is no I/O
 * between oidc-provider's find and consume, so over HTTP the requests serialise anyway; this path
 * is defensive and is proven by test/oidc-provider/adapter.test.ts directly.)
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';

interface Entry {
  payload: AdapterPayload;
  /** Epoch milliseconds; Infinity when the artifact has no expiry. */
  expiresAt: number;
}

export interface AtomicMemoryAdapterOptions {
  /** The error a lost consume race throws; oidc-provider renders it (invalid_grant). */
  alreadyConsumed: (model: string) => Error;
  /** Clock in milliseconds. */
  now?: () => number;
}

/** The factory oidc-provider's `adapter` option takes, and a look at what it holds. */
export interface AtomicMemoryAdapterFactory {
  (model: string): Adapter;
  /** The ids of the live entries of one model (e.g. "Client": the dynamically registered clients). */
  ids(model: string): string[];
}

/** Returns the factory oidc-provider's `adapter` option takes: one adapter per model name. */
export function createAtomicMemoryAdapter(options: AtomicMemoryAdapterOptions): AtomicMemoryAdapterFactory {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const byUserCode = new Map<string, string>();
  const byUid = new Map<string, string>();
  const byGrant = new Map<string, Set<string>>();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  /** Deletes the grant's artifacts of one model, or of every model when `model` is absent. */
  const revokeGrantMembers = (grantId: string, model?: string): void => {
    const members = byGrant.get(grantId);
    if (!members) return;
    for (const key of members) {
      if (model === undefined || key.startsWith(`${model}:`)) {
        entries.delete(key);
        members.delete(key);
      }
    }
    if (members.size === 0) byGrant.delete(grantId);
  };

  const factory = (model: string): Adapter => {
    const keyOf = (id: string): string => `${model}:${id}`;
    const copy = (entry: Entry | undefined): AdapterPayload | undefined => (entry ? { ...entry.payload } : undefined);

    return {
      async upsert(id, payload, expiresIn) {
        const key = keyOf(id);
        const expiresAt = typeof expiresIn === 'number' ? now() + expiresIn * 1000 : Infinity;
        entries.set(key, { payload: { ...payload }, expiresAt });
        if (payload.grantId) {
          const members = byGrant.get(payload.grantId) ?? new Set<string>();
          members.add(key);
          byGrant.set(payload.grantId, members);
        }
        if (payload.userCode) byUserCode.set(payload.userCode, key);
        if (model === 'Session' && payload.uid) byUid.set(payload.uid, key);
      },
      async find(id) {
        return copy(live(keyOf(id)));
      },
      async findByUserCode(userCode) {
        const key = byUserCode.get(userCode);
        return key ? copy(live(key)) : undefined;
      },
      async findByUid(uid) {
        const key = byUid.get(uid);
        return key ? copy(live(key)) : undefined;
      },
      async consume(id) {
        const entry = live(keyOf(id));
        // Gone since it was found (expired, or revoked by a replay that lost the race): refused too.
        if (!entry) throw options.alreadyConsumed(model);
        if (entry.payload.consumed) {
          // What oidc-provider does on a sequential replay: revoke the grant's tokens and the grant.
          if (entry.payload.grantId) {
            revokeGrantMembers(entry.payload.grantId);
            entries.delete(`Grant:${entry.payload.grantId}`);
          }
          throw options.alreadyConsumed(model);
        }
        entry.payload.consumed = Math.floor(now() / 1000);
      },
      async destroy(id) {
        entries.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        revokeGrantMembers(grantId, model);
      },
    };
  };
  factory.ids = (model: string): string[] =>
    [...entries.keys()].filter((k) => k.startsWith(`${model}:`) && live(k)).map((k) => k.slice(model.length + 1));
  return factory;
}
