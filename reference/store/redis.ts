/**
 * A Store on Redis (ioredis), so that several reference instances behind a load balancer share
 * codes, refresh-token families, revocations, interactions, device requests, login sessions,
 * pushed requests, one-time marks and dynamically registered clients.
 *
 * Atomicity across instances: every single-use operation is one Redis command or one Lua script
 * (Redis runs a script without interleaving another client's command): GETDEL for interactions
 * and pushed requests, SET NX for one-time marks and user codes, scripts for code redemption,
 * refresh rotation and device transitions. Expiry: every key carries a Redis TTL, so Redis evicts
 * it; reads also compare the record's `expiresAt` with the server's clock, so a record reads as
 * absent from its expiry on even when the clock is the server's own (`now`) rather than Redis's.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { z } from 'zod';
import {
  ACCESS_TOKEN_RECORD,
  ACTIVATION_RECORD,
  CLIENT_REGISTRATION_RECORD,
  CODE_RECORD,
  DEVICE_RECORD,
  INTERACTION_RECORD,
  PUSHED_REQUEST_RECORD,
  REFRESH_RECORD,
  REFRESH_STATE,
  SESSION_RECORD,
} from './records.ts';
import type {
  AccessTokenRecord,
  ActivationRecord,
  ClientRegistrationRecord,
  CodeRecord,
  DeviceRecord,
  DeviceStatus,
  InteractionRecord,
  PushedRequestRecord,
  RefreshRecord,
  SessionRecord,
  Store,
  StoredAccessToken,
  StoredRefresh,
  Successors,
} from './store.ts';

export interface RedisStoreOptions {
  /** A redis:// URL (ignored when `client` is given). */
  url?: string;
  /** An ioredis client to use; the store then does not quit it on close(). */
  client?: Redis;
  /** Prepended to every key, so several servers (or tests) can share one Redis. Default `idpc:`. */
  prefix?: string;
  /** Clock in epoch milliseconds. */
  now?: () => number;
  /** As MemoryStoreOptions.usedCodeRetentionMs. */
  usedCodeRetentionMs?: number;
  /** Extra ioredis options when `url` is used. */
  redis?: RedisOptions;
}

/**
 * The successors' SETs (Store Successors), in the script that consumes: KEYS[first…] with ARGV value, TTL pairs from
 * ARGV[firstArg].
 */
const saveSuccessors = (firstKey: number, firstArg: number) => `
for i = ${firstKey}, #KEYS do
  local a = ${firstArg} + (i - ${firstKey}) * 2
  redis.call('SET', KEYS[i], ARGV[a], 'PX', ARGV[a + 1])
end`;

/** GET the code, DEL it, remember its grant for replay detection, save its successors; the record to one caller. */
const CONSUME_CODE = `
local v = redis.call('GET', KEYS[1])
if not v then return false end
redis.call('DEL', KEYS[1])
local r = cjson.decode(v)
local now = tonumber(ARGV[1])
if tonumber(r.expiresAt) <= now then return false end
local keep = tonumber(r.expiresAt) + tonumber(ARGV[2]) - now
redis.call('SET', KEYS[2], r.grantId, 'PX', math.max(1, math.floor(keep)))${saveSuccessors(3, 3)}
return v`;

/** When the old token is active (and its grant not revoked): mark it rotated, save the next one. */
const ROTATE_REFRESH = `
if redis.call('GET', KEYS[1]) ~= 'active' then return 0 end
local v = redis.call('GET', KEYS[2])
if not v then return 0 end
local r = cjson.decode(v)
if tonumber(r.expiresAt) <= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', ARGV[4] .. r.grantId) == 1 then return 0 end
redis.call('SET', KEYS[1], 'rotated', 'KEEPTTL')
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
redis.call('SET', KEYS[4], 'active', 'PX', ARGV[3])${saveSuccessors(5, 5)}
return 1`;

/** Save a device request unless a live one has its user code. */
const SAVE_DEVICE = `
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) == false then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[3], '1', 'PX', ARGV[4])
return 1`;

/**
 * Read-modify-write of a device record: ARGV[1] = now, ARGV[2] = 'poll' | 'transition', then the values; a redeeming
 * transition saves its successors (KEYS[2…], ARGV[6…]).
 */
const UPDATE_DEVICE = `
local v = redis.call('GET', KEYS[1])
if not v then return false end
local r = cjson.decode(v)
if tonumber(r.expiresAt) <= tonumber(ARGV[1]) then return false end
if ARGV[2] == 'poll' then
  r.lastPollAt = tonumber(ARGV[3])
  r.interval = tonumber(ARGV[4])
else
  if r.status ~= ARGV[3] then return false end
  r.status = ARGV[4]
  if ARGV[5] ~= '' then r.user = cjson.decode(ARGV[5]) end
end
local out = cjson.encode(r)
redis.call('SET', KEYS[1], out, 'KEEPTTL')${saveSuccessors(2, 6)}
return out`;

/** SET the latest value, returning the one it replaced (SET … GET needs Redis 6.2; this runs on any). */
const SWAP_LATEST = `
local old = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return old`;

export class RedisStore implements Store {
  readonly client: Redis;
  readonly #owned: boolean;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #usedCodeRetentionMs: number;

  constructor(options: RedisStoreOptions = {}) {
    if (options.client) {
      this.client = options.client;
      this.#owned = false;
    } else {
      if (!options.url) throw new Error('RedisStore needs a url (redis://host:port/db) or a client');
      const url = new URL(options.url);
      if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
        throw new Error(`the store URL must start with redis:// or rediss://, not ${url.protocol}//`);
      }
      // Fail fast instead of queueing commands forever while Redis is down.
      this.client = new Redis(options.url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, ...options.redis });
      this.#owned = true;
    }
    this.#prefix = options.prefix ?? 'idpc:';
    this.#now = options.now ?? Date.now;
    this.#usedCodeRetentionMs = options.usedCodeRetentionMs ?? 10 * 60_000;
  }

  /** Waits until Redis answers (a PING), or throws with the cause. */
  async ready(): Promise<void> {
    await this.client.ping();
  }

  #key(kind: string, id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }
  /** Milliseconds until `expiresAt` on the server's clock, at least 1 (Redis refuses 0). */
  #ttl(expiresAt: number): number {
    return Math.max(1, Math.floor(expiresAt - this.#now()));
  }
  async #put(kind: string, id: string, value: unknown, expiresAt: number): Promise<void> {
    await this.client.set(this.#key(kind, id), JSON.stringify(value), 'PX', this.#ttl(expiresAt));
  }
  /** A live record read by its schema, or undefined when absent (not a string: null) or past its expiresAt. */
  #live<T extends { expiresAt: number }>(schema: z.ZodType<T>, raw: unknown): T | undefined {
    if (typeof raw !== 'string') return undefined;
    const record = schema.parse(JSON.parse(raw));
    return record.expiresAt > this.#now() ? record : undefined;
  }
  async #get<T extends { expiresAt: number }>(schema: z.ZodType<T>, kind: string, id: string): Promise<T | undefined> {
    return this.#live(schema, await this.client.get(this.#key(kind, id)));
  }

  async saveCode(record: CodeRecord): Promise<void> {
    await this.#put('code', record.code, record, record.expiresAt);
  }
  async peekCode(code: string): Promise<CodeRecord | undefined> {
    return this.#get(CODE_RECORD, 'code', code);
  }
  async consumeCode(code: string, successors?: Successors): Promise<CodeRecord | undefined> {
    const writes = this.#successorWrites(successors);
    const raw = await this.client.eval(
      CONSUME_CODE,
      2 + writes.keys.length,
      this.#key('code', code),
      this.#key('usedcode', code),
      ...writes.keys,
      this.#now(),
      this.#usedCodeRetentionMs,
      ...writes.args,
    );
    // The script checked the expiry on the server's clock; the record is read as it was.
    return typeof raw === 'string' ? CODE_RECORD.parse(JSON.parse(raw)) : undefined;
  }
  async usedCodeGrant(code: string): Promise<string | undefined> {
    return (await this.client.get(this.#key('usedcode', code))) ?? undefined;
  }

  async saveRefresh(record: RefreshRecord): Promise<void> {
    const ttl = this.#ttl(record.expiresAt);
    await this.client
      .multi()
      .set(this.#key('rt', record.token), JSON.stringify(record), 'PX', ttl)
      .set(this.#key('rts', record.token), 'active', 'PX', ttl)
      .exec();
  }
  async findRefresh(token: string): Promise<StoredRefresh | undefined> {
    const [raw, state] = await this.client.mget(this.#key('rt', token), this.#key('rts', token));
    const record = this.#live(REFRESH_RECORD, raw);
    if (!record) return undefined;
    const revoked = await this.isGrantRevoked(record.grantId);
    return { record, state: revoked ? 'revoked' : REFRESH_STATE.parse(state) };
  }
  async rotateRefresh(oldToken: string, next: RefreshRecord, successors?: Successors): Promise<boolean> {
    const writes = this.#successorWrites(successors);
    const rotated = await this.client.eval(
      ROTATE_REFRESH,
      4 + writes.keys.length,
      this.#key('rts', oldToken),
      this.#key('rt', oldToken),
      this.#key('rt', next.token),
      this.#key('rts', next.token),
      ...writes.keys,
      this.#now(),
      JSON.stringify(next),
      this.#ttl(next.expiresAt),
      `${this.#prefix}grant:`,
      ...writes.args,
    );
    return rotated === 1;
  }
  /** The keys, and the value and TTL of each, that saveAccessToken and saveRefresh would SET for `successors`. */
  #successorWrites(successors: Successors = {}): { keys: string[]; args: (string | number)[] } {
    const { accessToken, refresh } = successors;
    const writes: [string, string, number][] = [];
    if (accessToken) {
      writes.push([this.#key('at', accessToken.jti), JSON.stringify(accessToken), this.#ttl(accessToken.expiresAt)]);
    }
    if (refresh) {
      const ttl = this.#ttl(refresh.expiresAt);
      writes.push([this.#key('rt', refresh.token), JSON.stringify(refresh), ttl]);
      writes.push([this.#key('rts', refresh.token), 'active', ttl]);
    }
    return { keys: writes.map(([key]) => key), args: writes.flatMap(([, value, ttl]) => [value, ttl]) };
  }
  async revokeRefresh(token: string): Promise<void> {
    await this.client.set(this.#key('rts', token), 'revoked', 'KEEPTTL', 'XX');
  }

  async saveAccessToken(record: AccessTokenRecord): Promise<void> {
    await this.#put('at', record.jti, record, record.expiresAt);
  }
  async revokeAccessToken(jti: string): Promise<void> {
    const ttl = await this.client.pttl(this.#key('at', jti));
    if (ttl > 0) await this.client.set(this.#key('atrevoked', jti), '1', 'PX', ttl);
  }
  async isAccessTokenActive(jti: string): Promise<boolean> {
    const found = await this.findAccessToken(jti);
    return found !== undefined && !found.revoked;
  }
  async findAccessToken(jti: string): Promise<StoredAccessToken | undefined> {
    const [raw, revokedFlag] = await this.client.mget(this.#key('at', jti), this.#key('atrevoked', jti));
    const record = this.#live(ACCESS_TOKEN_RECORD, raw);
    if (!record) return undefined;
    const revoked =
      revokedFlag === '1' || (record.grantId !== undefined && (await this.isGrantRevoked(record.grantId)));
    return { record, revoked };
  }

  async revokeGrant(grantId: string, until: number): Promise<void> {
    await this.client.set(this.#key('grant', grantId), '1', 'PX', this.#ttl(until));
  }
  async isGrantRevoked(grantId: string): Promise<boolean> {
    return (await this.client.exists(this.#key('grant', grantId))) === 1;
  }

  async saveInteraction(record: InteractionRecord): Promise<void> {
    await this.#put('interaction', record.id, record, record.expiresAt);
  }
  async findInteraction(id: string): Promise<InteractionRecord | undefined> {
    return this.#get(INTERACTION_RECORD, 'interaction', id);
  }
  async consumeInteraction(id: string): Promise<InteractionRecord | undefined> {
    return this.#live(INTERACTION_RECORD, await this.client.getdel(this.#key('interaction', id)));
  }

  async saveDevice(record: DeviceRecord): Promise<boolean> {
    const saved = await this.client.eval(
      SAVE_DEVICE,
      3,
      this.#key('device', record.deviceCode),
      this.#key('usercode', record.userCode),
      this.#key('issued', record.deviceCode),
      JSON.stringify(record),
      record.deviceCode,
      this.#ttl(record.expiresAt),
      this.#ttl(record.expiresAt + this.#usedCodeRetentionMs),
    );
    return saved === 1;
  }
  async findDevice(deviceCode: string): Promise<DeviceRecord | undefined> {
    return this.#get(DEVICE_RECORD, 'device', deviceCode);
  }
  async findDeviceByUserCode(userCode: string): Promise<DeviceRecord | undefined> {
    const deviceCode = await this.client.get(this.#key('usercode', userCode));
    return deviceCode === null ? undefined : this.findDevice(deviceCode);
  }
  async recordDevicePoll(deviceCode: string, at: number, interval: number): Promise<void> {
    await this.client.eval(UPDATE_DEVICE, 1, this.#key('device', deviceCode), this.#now(), 'poll', at, interval);
  }
  async transitionDevice(
    deviceCode: string,
    from: DeviceStatus,
    to: DeviceStatus,
    user?: DeviceRecord['user'],
    successors?: Successors,
  ): Promise<DeviceRecord | undefined> {
    const writes = this.#successorWrites(successors);
    const raw = await this.client.eval(
      UPDATE_DEVICE,
      1 + writes.keys.length,
      this.#key('device', deviceCode),
      ...writes.keys,
      this.#now(),
      'transition',
      from,
      to,
      user ? JSON.stringify(user) : '',
      ...writes.args,
    );
    return typeof raw === 'string' ? DEVICE_RECORD.parse(JSON.parse(raw)) : undefined;
  }
  async deviceCodeExpired(deviceCode: string): Promise<boolean> {
    if (await this.findDevice(deviceCode)) return false;
    return (await this.client.exists(this.#key('issued', deviceCode))) === 1;
  }

  async saveActivation(record: ActivationRecord): Promise<void> {
    await this.#put('activation', record.id, record, record.expiresAt);
  }
  async findActivation(id: string): Promise<ActivationRecord | undefined> {
    return this.#get(ACTIVATION_RECORD, 'activation', id);
  }

  async saveSession(record: SessionRecord): Promise<void> {
    await this.#put('session', record.id, record, record.expiresAt);
  }
  async findSession(id: string): Promise<SessionRecord | undefined> {
    return this.#get(SESSION_RECORD, 'session', id);
  }
  async deleteSession(id: string): Promise<void> {
    await this.client.del(this.#key('session', id));
  }

  async savePushedRequest(record: PushedRequestRecord): Promise<void> {
    await this.#put('par', record.requestUri, record, record.expiresAt);
  }
  async consumePushedRequest(requestUri: string): Promise<PushedRequestRecord | undefined> {
    return this.#live(PUSHED_REQUEST_RECORD, await this.client.getdel(this.#key('par', requestUri)));
  }

  async saveClientRegistration(record: ClientRegistrationRecord): Promise<void> {
    await this.#put('client', record.clientId, record, record.expiresAt);
  }
  async findClientRegistration(clientId: string): Promise<ClientRegistrationRecord | undefined> {
    return this.#get(CLIENT_REGISTRATION_RECORD, 'client', clientId);
  }
  async deleteClientRegistration(clientId: string): Promise<boolean> {
    const raw = await this.client.getdel(this.#key('client', clientId));
    return this.#live(CLIENT_REGISTRATION_RECORD, raw) !== undefined;
  }

  async markOnce(namespace: string, key: string, expiresAt: number): Promise<boolean> {
    const set = await this.client.set(this.#key(`once:${namespace}`, key), '1', 'PX', this.#ttl(expiresAt), 'NX');
    return set === 'OK';
  }

  async swapLatest(namespace: string, key: string, value: string, expiresAt: number): Promise<string | undefined> {
    const stored = this.#key(`latest:${namespace}`, key);
    const old = await this.client.eval(SWAP_LATEST, 1, stored, value, this.#ttl(expiresAt));
    return typeof old === 'string' ? old : undefined;
  }

  /**
   * A value shared by every instance on this Redis: the first caller's `value` wins and every
   * caller gets the winner (SET NX, then GET). Used for the signing keys.
   */
  async shared(name: string, value: string): Promise<string> {
    const key = this.#key('shared', name);
    await this.client.set(key, value, 'NX');
    const winner = await this.client.get(key);
    if (winner === null) throw new Error(`the shared value "${name}" vanished from Redis`);
    return winner;
  }

  async close(): Promise<void> {
    if (!this.#owned) return;
    // QUIT when Redis answers within a second; then no reconnecting either way (a Redis that is down or hung keeps
    // neither the caller nor the process waiting).
    const waited = new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
    await Promise.race([this.client.quit().catch(() => undefined), waited]);
    this.client.disconnect();
  }
}
