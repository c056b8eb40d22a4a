/**
 * A store that is down is an outage, not a bug (issue 43). `guardStore` wraps any Store: a call that the store does
 * not answer within the limit, or that fails because the store is unreachable (a refused or closed connection, Redis
 * loading its data after a restart, a read-only replica…), rejects with StoreUnavailableError. Any other error stays
 * what it is: a bug, a 500.
 *
 * How the client sees the outage (http/errors.ts toOAuthError): HTTP 503 with Retry-After and
 * `temporarily_unavailable` (RFC 6749 §4.1.2.1, §5.2) as the JSON body at the token, introspection, revocation,
 * registration and device endpoints; an error page with 503 on the HTML pages (login, consent, activation, logout);
 * from the authorization endpoint a redirect with error=temporarily_unavailable once the redirect URI is known to be
 * the client's (endpoints/authorize.ts), an error page with 503 before. At userinfo (a resource, RFC 6750) the 503
 * carries no WWW-Authenticate challenge: the token was not judged, so the client keeps it (OIDC Core §5.3.3: errors
 * unrelated to RFC 6750 get the appropriate HTTP status code).
 * Nothing is retried here: the next request tries the store again, so the server recovers by itself when the store
 * returns (the Redis client reconnects on its own).
 */
import type { Store } from './store.ts';

/** The default bound on one store call, in milliseconds (`serve --store-timeout-ms`). */
export const STORE_TIMEOUT_MS = 2000;

/** Seconds a client is asked to wait before retrying (the Retry-After of every outage answer). */
export const RETRY_AFTER_SECONDS = 1;

/** The store did not answer, or cannot be reached: the request may be retried later. */
export class StoreUnavailableError extends Error {
  /** What happened, in words safe to log: an error code or a timeout, never an address or a password. */
  readonly reason: string;
  /**
   * The call had reached the store when its connection dropped: the store may have carried it out without the answer
   * coming back (unlike a call that found no connection, or that timed out and may still be carried out later).
   */
  readonly lostWithConnection: boolean;
  constructor(reason: string, lostWithConnection = false) {
    super(`the store is unavailable (${reason})`);
    this.name = 'StoreUnavailableError';
    this.reason = reason;
    this.lostWithConnection = lostWithConnection;
  }
}

/**
 * Whether `err` says the command was sent and its connection dropped before the answer: ioredis rejects the commands
 * it had sent with MaxRetriesPerRequestError (or "Connection is closed") when the connection closes; a reset socket.
 */
function lostWithConnection(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  return (
    err.name === 'MaxRetriesPerRequestError' ||
    err.message.startsWith('Connection is closed') ||
    code === 'ECONNRESET' ||
    code === 'EPIPE'
  );
}

/** Socket errors of a connection that is gone or never came. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTCONN',
  'EAI_AGAIN',
]);

/** Redis error replies that mean "not now" (a restart, a failover, a full or unwritable server). */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF|OOM)\b/;

/** What ioredis says when it has no connection to send a command on (or lost the one it was sent on). */
const CLIENT_MESSAGES = [
  "Stream isn't writeable",
  'Connection is closed',
  'Command timed out',
  'Reached the max retries per request limit',
];

/** The loggable reason when `err` means the store is unreachable; undefined for any other error. */
export function outageReason(err: unknown): string | undefined {
  if (err instanceof StoreUnavailableError) return err.reason;
  if (!(err instanceof Error)) return undefined;
  const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  if (code !== undefined && CONNECTION_CODES.has(code)) return code;
  const reply = UNAVAILABLE_REPLIES.exec(err.message);
  if (reply) return `Redis replied ${reply[1]}`;
  if (err.name === 'MaxRetriesPerRequestError') return 'no connection';
  if (CLIENT_MESSAGES.some((message) => err.message.startsWith(message))) return 'no connection';
  return undefined;
}

export interface GuardOptions {
  /** The longest a store call may take before it is answered as an outage (milliseconds). */
  timeoutMs?: number;
  /** Told once when the store stops answering, and once when it answers again (for the operator's log). */
  onChange?(available: boolean, reason: string): void;
}

/** What `guardStore` knows of the store: whether its latest call succeeded, and since when it is down. */
export interface StoreHealth {
  readonly available: boolean;
  /** Epoch ms of the first failed call of the current outage. */
  readonly downSince?: number;
}

const HEALTH = new WeakMap<object, StoreHealth>();

/** The health of a guarded store; undefined for a store `guardStore` did not wrap. */
export function storeHealth(store: Store): StoreHealth | undefined {
  return HEALTH.get(store);
}

/**
 * The store with every call bounded by `timeoutMs` and every failure to reach it turned into StoreUnavailableError.
 * A call that timed out is not cancelled (the store may still carry it out): each single-use operation is one atomic
 * store call, so it happens whole or not at all either way (grants/issue.ts `consumed` looks which, where it can).
 */
export function guardStore<T extends Store>(store: T, options: GuardOptions = {}): T {
  const timeoutMs = options.timeoutMs ?? STORE_TIMEOUT_MS;
  const health: { available: boolean; downSince?: number } = { available: true };
  const down = (reason: string) => {
    if (!health.available) return;
    health.available = false;
    health.downSince = Date.now();
    options.onChange?.(false, reason);
  };
  const up = () => {
    if (health.available) return;
    const since = health.downSince ?? Date.now();
    health.available = true;
    delete health.downSince;
    options.onChange?.(true, `after ${((Date.now() - since) / 1000).toFixed(1)} s`);
  };
  const guarded = async (call: () => Promise<unknown>): Promise<unknown> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreUnavailableError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const result = await Promise.race([call(), timeout]);
      up();
      return result;
    } catch (err) {
      const reason = outageReason(err);
      if (reason === undefined) throw err;
      down(reason);
      throw err instanceof StoreUnavailableError ? err : new StoreUnavailableError(reason, lostWithConnection(err));
    } finally {
      clearTimeout(timer);
    }
  };
  const proxy = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      // close() is the server's own last step: it is not an answer anybody waits for.
      if (property === 'close') return (...args: unknown[]) => Reflect.apply(value, target, args);
      return (...args: unknown[]) => guarded(async () => Reflect.apply(value, target, args));
    },
  });
  HEALTH.set(proxy, health);
  return proxy;
}
