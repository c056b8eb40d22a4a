/**
 * The default Store: in-process maps. Each operation runs to completion without an `await`
 * between its read and its write, which is what makes the single-use operations atomic in
 * Node's single thread. Expired entries read as absent and a periodic sweep evicts them.
 */
import type {
  AccessTokenRecord,
  ActivationRecord,
  ClientRegistrationRecord,
  CodeRecord,
  DeviceRecord,
  DeviceStatus,
  InteractionRecord,
  RefreshRecord,
  Store,
  PushedRequestRecord,
  SessionRecord,
  StoredAccessToken,
  StoredRefresh,
  Successors,
} from './store.ts';

export interface MemoryStoreOptions {
  /** Clock in epoch milliseconds. */
  now?: () => number;
  /** How often expired entries are evicted. */
  sweepIntervalMs?: number;
  /**
   * How long a consumed code is remembered after its expiry, to recognise replays; and how long
   * an expired device code is still recognised as one (expired_token).
   */
  usedCodeRetentionMs?: number;
}

/** A map whose entries expire; the building block of the memory store. */
class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  constructor(private readonly now: () => number) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }
  set(key: string, value: V, expiresAt: number): void {
    this.#entries.set(key, { value, expiresAt });
  }
  take(key: string): V | undefined {
    const value = this.get(key);
    this.#entries.delete(key);
    return value;
  }
  sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
  }
  get size(): number {
    return this.#entries.size;
  }
}

export class MemoryStore implements Store {
  readonly #now: () => number;
  readonly #usedCodeRetentionMs: number;
  readonly #codes: ExpiringMap<CodeRecord>;
  readonly #usedCodes: ExpiringMap<string>;
  readonly #refresh: ExpiringMap<StoredRefresh>;
  readonly #accessTokens: ExpiringMap<AccessTokenRecord & { revoked: boolean }>;
  readonly #revokedGrants: ExpiringMap<true>;
  readonly #interactions: ExpiringMap<InteractionRecord>;
  readonly #devices: ExpiringMap<DeviceRecord>;
  /** User code → device code, for the activation page. */
  readonly #userCodes: ExpiringMap<string>;
  /** Every device code issued, until well after its expiry. */
  readonly #issuedDeviceCodes: ExpiringMap<true>;
  readonly #activations: ExpiringMap<ActivationRecord>;
  readonly #sessions: ExpiringMap<SessionRecord>;
  readonly #pushed: ExpiringMap<PushedRequestRecord>;
  readonly #marks: ExpiringMap<true>;
  readonly #latest: ExpiringMap<string>;
  readonly #clients: ExpiringMap<ClientRegistrationRecord>;
  readonly #maps: ExpiringMap<unknown>[];
  #timer: NodeJS.Timeout | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    const now = options.now ?? Date.now;
    this.#now = now;
    this.#usedCodeRetentionMs = options.usedCodeRetentionMs ?? 10 * 60_000;
    this.#codes = new ExpiringMap(now);
    this.#usedCodes = new ExpiringMap(now);
    this.#refresh = new ExpiringMap(now);
    this.#accessTokens = new ExpiringMap(now);
    this.#revokedGrants = new ExpiringMap(now);
    this.#interactions = new ExpiringMap(now);
    this.#devices = new ExpiringMap(now);
    this.#userCodes = new ExpiringMap(now);
    this.#issuedDeviceCodes = new ExpiringMap(now);
    this.#activations = new ExpiringMap(now);
    this.#sessions = new ExpiringMap(now);
    this.#pushed = new ExpiringMap(now);
    this.#marks = new ExpiringMap(now);
    this.#latest = new ExpiringMap(now);
    this.#clients = new ExpiringMap(now);
    this.#maps = [
      this.#codes,
      this.#usedCodes,
      this.#refresh,
      this.#accessTokens,
      this.#revokedGrants,
      this.#interactions,
      this.#devices,
      this.#userCodes,
      this.#issuedDeviceCodes,
      this.#activations,
      this.#sessions,
      this.#pushed,
      this.#marks,
      this.#latest,
      this.#clients,
    ];
    this.#timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.#timer.unref();
  }

  async saveCode(record: CodeRecord): Promise<void> {
    this.#codes.set(record.code, record, record.expiresAt);
  }
  async peekCode(code: string): Promise<CodeRecord | undefined> {
    return this.#codes.get(code);
  }
  async consumeCode(code: string, successors?: Successors): Promise<CodeRecord | undefined> {
    const record = this.#codes.take(code);
    if (record) this.#usedCodes.set(code, record.grantId, record.expiresAt + this.#usedCodeRetentionMs);
    if (record && successors) this.#saveSuccessors(successors);
    return record;
  }
  async usedCodeGrant(code: string): Promise<string | undefined> {
    return this.#usedCodes.get(code);
  }

  async saveRefresh(record: RefreshRecord): Promise<void> {
    this.#refresh.set(record.token, { record, state: 'active' }, record.expiresAt);
  }
  async findRefresh(token: string): Promise<StoredRefresh | undefined> {
    const stored = this.#refresh.get(token);
    if (!stored) return undefined;
    return this.#revokedGrants.get(stored.record.grantId) ? { ...stored, state: 'revoked' } : { ...stored };
  }
  async rotateRefresh(oldToken: string, next: RefreshRecord, successors?: Successors): Promise<boolean> {
    const stored = this.#refresh.get(oldToken);
    if (stored?.state !== 'active' || this.#revokedGrants.get(stored.record.grantId)) return false;
    stored.state = 'rotated';
    this.#refresh.set(next.token, { record: next, state: 'active' }, next.expiresAt);
    if (successors) this.#saveSuccessors(successors);
    return true;
  }
  /** In the same synchronous step as the consumption that issued them (the Store contract). */
  #saveSuccessors({ accessToken, refresh }: Successors): void {
    if (accessToken) this.#accessTokens.set(accessToken.jti, { ...accessToken, revoked: false }, accessToken.expiresAt);
    if (refresh) this.#refresh.set(refresh.token, { record: refresh, state: 'active' }, refresh.expiresAt);
  }
  async revokeRefresh(token: string): Promise<void> {
    const stored = this.#refresh.get(token);
    if (stored) stored.state = 'revoked';
  }

  async saveAccessToken(record: AccessTokenRecord): Promise<void> {
    this.#accessTokens.set(record.jti, { ...record, revoked: false }, record.expiresAt);
  }
  async revokeAccessToken(jti: string): Promise<void> {
    const stored = this.#accessTokens.get(jti);
    if (stored) stored.revoked = true;
  }
  async isAccessTokenActive(jti: string): Promise<boolean> {
    const found = await this.findAccessToken(jti);
    return found !== undefined && !found.revoked;
  }
  async findAccessToken(jti: string): Promise<StoredAccessToken | undefined> {
    const stored = this.#accessTokens.get(jti);
    if (!stored) return undefined;
    const { revoked, ...record } = stored;
    return {
      record,
      revoked: revoked || (record.grantId !== undefined && this.#revokedGrants.get(record.grantId) === true),
    };
  }

  async revokeGrant(grantId: string, until: number): Promise<void> {
    this.#revokedGrants.set(grantId, true, until);
  }
  async isGrantRevoked(grantId: string): Promise<boolean> {
    return this.#revokedGrants.get(grantId) === true;
  }

  async saveInteraction(record: InteractionRecord): Promise<void> {
    this.#interactions.set(record.id, record, record.expiresAt);
  }
  async findInteraction(id: string): Promise<InteractionRecord | undefined> {
    return this.#interactions.get(id);
  }
  async consumeInteraction(id: string): Promise<InteractionRecord | undefined> {
    return this.#interactions.take(id);
  }

  async saveDevice(record: DeviceRecord): Promise<boolean> {
    if (this.#userCodes.get(record.userCode) !== undefined) return false;
    this.#devices.set(record.deviceCode, { ...record }, record.expiresAt);
    this.#userCodes.set(record.userCode, record.deviceCode, record.expiresAt);
    this.#issuedDeviceCodes.set(record.deviceCode, true, record.expiresAt + this.#usedCodeRetentionMs);
    return true;
  }
  async findDevice(deviceCode: string): Promise<DeviceRecord | undefined> {
    const record = this.#devices.get(deviceCode);
    return record && { ...record };
  }
  async findDeviceByUserCode(userCode: string): Promise<DeviceRecord | undefined> {
    const deviceCode = this.#userCodes.get(userCode);
    return deviceCode === undefined ? undefined : this.findDevice(deviceCode);
  }
  async recordDevicePoll(deviceCode: string, at: number, interval: number): Promise<void> {
    const record = this.#devices.get(deviceCode);
    if (!record) return;
    record.lastPollAt = at;
    record.interval = interval;
  }
  async transitionDevice(
    deviceCode: string,
    from: DeviceStatus,
    to: DeviceStatus,
    user?: DeviceRecord['user'],
    successors?: Successors,
  ): Promise<DeviceRecord | undefined> {
    const record = this.#devices.get(deviceCode);
    if (!record || record.status !== from) return undefined;
    record.status = to;
    if (user) record.user = { ...user };
    if (successors) this.#saveSuccessors(successors);
    return { ...record };
  }
  async deviceCodeExpired(deviceCode: string): Promise<boolean> {
    return this.#devices.get(deviceCode) === undefined && this.#issuedDeviceCodes.get(deviceCode) === true;
  }

  async saveActivation(record: ActivationRecord): Promise<void> {
    this.#activations.set(record.id, record, record.expiresAt);
  }
  async findActivation(id: string): Promise<ActivationRecord | undefined> {
    return this.#activations.get(id);
  }

  async saveSession(record: SessionRecord): Promise<void> {
    this.#sessions.set(record.id, { ...record }, record.expiresAt);
  }
  async findSession(id: string): Promise<SessionRecord | undefined> {
    const record = this.#sessions.get(id);
    return record && { ...record };
  }
  async deleteSession(id: string): Promise<void> {
    this.#sessions.take(id);
  }

  async savePushedRequest(record: PushedRequestRecord): Promise<void> {
    this.#pushed.set(record.requestUri, record, record.expiresAt);
  }
  async consumePushedRequest(requestUri: string): Promise<PushedRequestRecord | undefined> {
    return this.#pushed.take(requestUri);
  }

  async saveClientRegistration(record: ClientRegistrationRecord): Promise<void> {
    this.#clients.set(record.clientId, structuredClone(record), record.expiresAt);
  }
  async findClientRegistration(clientId: string): Promise<ClientRegistrationRecord | undefined> {
    const record = this.#clients.get(clientId);
    return record && structuredClone(record);
  }
  async deleteClientRegistration(clientId: string): Promise<boolean> {
    return this.#clients.take(clientId) !== undefined;
  }

  async markOnce(namespace: string, key: string, expiresAt: number): Promise<boolean> {
    const id = `${namespace}\u0000${key}`;
    if (this.#marks.get(id)) return false;
    this.#marks.set(id, true, expiresAt);
    return true;
  }

  async swapLatest(namespace: string, key: string, value: string, expiresAt: number): Promise<string | undefined> {
    const id = `${namespace}\u0000${key}`;
    const before = this.#latest.get(id);
    this.#latest.set(id, value, expiresAt);
    return before;
  }

  /** Evicts every expired entry now (the timer calls this periodically). */
  sweep(): void {
    for (const map of this.#maps) map.sweep();
  }
  /** Number of stored entries, expired ones included until the next sweep. */
  get size(): number {
    return this.#maps.reduce((sum, map) => sum + map.size, 0);
  }
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
