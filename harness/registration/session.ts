/**
 * Zero-config runs (docs/target-config.md): before the scenarios, the harness registers a client (RFC 7591) for each
 * role the selected scenarios need and the config lacks, and after them deletes every one it registered (RFC 7592
 * §2.3), whatever ended the run: its end, a failure (the caller's `finally`), SIGINT or SIGTERM (guardSignals). A
 * role the IdP refuses is noted with the IdP's words, and its scenarios skip with them. Clients the config names are
 * used as they are. Everything the IdP issues (client secrets, registration access tokens) goes to the run's
 * redactor before anything is reported.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { unusedLoopbackPort } from '../run/ports.ts';
import { GRANT } from '../../protocol/grants.ts';
import type { PrivateJwk } from '../config/clients-schema.ts';
import { DEFAULT_REGISTERED_ROLES } from '../config/registration-schema.ts';
import type { ClientEntry, TargetConfig } from '../config/schema.ts';
import { ConfigError, HarnessError } from '../scenario/failures.ts';
import { HttpClient, OffOriginError } from '../http/client.ts';
import { Recorder } from '../context/recorder.ts';
import type { Redactor } from '../redact/redact.ts';
import type { RegistrationSummary } from '../scenario/results.ts';
import type { ClientRole } from '../scenario/requirements.ts';
import type { Target } from '../target/target.ts';
import { type Registration, register, remove, unmanageable } from './client.ts';

/** The roles to register: those the scenarios need, registration.roles allows, and the config does not name. */
export function rolesToRegister(config: TargetConfig, needed: Iterable<ClientRole>): ClientRole[] {
  if (!config.registration?.enabled) return [];
  const allowed: readonly ClientRole[] = config.registration.roles ?? DEFAULT_REGISTERED_ROLES;
  const wanted = new Set(needed);
  return allowed.filter((role) => wanted.has(role) && !config.clients[role]);
}

/** OpenID Connect's own scopes (OIDC Core §5.4, §11): about a user, never a machine client's. */
const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;

/** A private key for the keyed role: ES256 unless the IdP lists signing algorithms without it and with RS256. */
function generateClientKey(discovery: Record<string, unknown> | null): PrivateJwk {
  const algs = strings(discovery?.token_endpoint_auth_signing_alg_values_supported);
  const rsa = algs !== undefined && !algs.includes('ES256') && algs.includes('RS256');
  const kid = `idp-conformance-${randomBytes(6).toString('hex')}`;
  const jwk = (
    rsa
      ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
      : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey
  ).export({ format: 'jwk' }) as Record<string, string>;
  return { ...jwk, kty: rsa ? 'RSA' : 'EC', kid, alg: rsa ? 'RS256' : 'ES256', d: jwk.d! } as PrivateJwk;
}

/** The public half of a private JWK (RFC 7517 §4: what the client registers in `jwks`). */
function publicJwk(jwk: PrivateJwk): Record<string, unknown> {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest } = jwk as Record<string, unknown>;
  return { ...rest, use: 'sig' };
}

/** The client metadata the harness sends for a role, and the target-config entry it becomes once registered. */
export interface RoleRequest {
  metadata: Record<string, unknown>;
  entry: Omit<ClientEntry, 'clientId'>;
}

/**
 * RFC 7591 §2 metadata for one role: redirect URIs on `loopback` (nothing listens there), the grant, response type and
 * authentication method the role exists for, and the scopes it asks for, from scopes_supported (as a hand-written
 * config would: openid with profile, email, offline_access; an API scope for machine and the first confidential
 * client, every API scope for exchange); the role's overrides from
 * registration.metadata over it.
 */
export function roleRequest(role: ClientRole, target: Target, loopback: string, config: TargetConfig): RoleRequest {
  const discovery = target.discovery;
  const supported = strings(discovery?.scopes_supported);
  const grants = strings(discovery?.grant_types_supported);
  const refresh = !grants || grants.includes(GRANT.refresh) ? [GRANT.refresh] : [];
  const ask = (...scopes: string[]) =>
    ['openid', ...scopes.filter((s) => !supported || supported.includes(s))].join(' ');
  const apis = (supported ?? []).filter((s) => !OIDC_SCOPES.has(s));
  const redirectUri = `${loopback}/${role}/callback`;
  const postLogoutRedirectUri = `${loopback}/${role}/logged-out`;
  const codeClient = (authMethod: 'client_secret_basic' | 'none' | 'private_key_jwt') => ({
    redirect_uris: [redirectUri],
    post_logout_redirect_uris: [postLogoutRedirectUri],
    grant_types: [GRANT.code, ...refresh],
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
  });
  const noRedirect = (grant: string, authMethod: 'client_secret_basic' | 'none') => ({
    grant_types: [grant, ...(grant === GRANT.device ? refresh : [])],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: authMethod,
  });
  const name = { client_name: `idp-conformance ${role} (delete me if the run left me behind)` };
  const logout = logoutRegistration(discovery ?? undefined, `${loopback}/${role}`);
  let request: RoleRequest;
  switch (role) {
    case 'confidential':
    case 'confidential2':
      request = {
        metadata: { ...codeClient('client_secret_basic'), ...(role === 'confidential' ? logout.metadata : {}) },
        entry: {
          redirectUri,
          postLogoutRedirectUri,
          // The first client also asks for an API scope: its tokens are what the exchange client exchanges.
          scope: ask('profile', 'email', 'offline_access', ...(role === 'confidential' ? apis.slice(0, 1) : [])),
          ...(role === 'confidential' ? logout.entry : {}),
        },
      };
      break;
    case 'public':
      request = { metadata: codeClient('none'), entry: { redirectUri, postLogoutRedirectUri, scope: ask('profile') } };
      break;
    case 'keyed': {
      const privateJwk = generateClientKey(discovery);
      request = {
        metadata: {
          ...codeClient('private_key_jwt'),
          token_endpoint_auth_signing_alg: privateJwk.alg,
          jwks: { keys: [publicJwk(privateJwk)] },
        },
        entry: {
          redirectUri,
          postLogoutRedirectUri,
          scope: ask('profile', 'email', 'offline_access'),
          privateJwk,
          authMethod: 'private_key_jwt',
        },
      };
      break;
    }
    case 'machine':
      // An API scope when the IdP lists one (not an OpenID Connect scope: client_credentials has no user).
      request = {
        metadata: noRedirect(GRANT.clientCredentials, 'client_secret_basic'),
        entry: apis.length ? { scope: apis[0]! } : {},
      };
      break;
    case 'exchange':
      // Every API scope: one the subject token holds (to downscope to) and others (to ask beyond it).
      request = {
        metadata: noRedirect(GRANT.exchange, 'client_secret_basic'),
        entry: apis.length ? { scope: apis.join(' ') } : {},
      };
      break;
    case 'device':
      request = {
        metadata: { ...noRedirect(GRANT.device, 'none'), application_type: 'native' },
        entry: { scope: ask('offline_access'), authMethod: 'none' },
      };
      break;
    case 'legacy':
      request = {
        metadata: {
          ...codeClient('client_secret_basic'),
          grant_types: [GRANT.code, GRANT.password, GRANT.implicit, ...refresh],
          response_types: ['code', 'token', 'id_token token'],
        },
        entry: { redirectUri, scope: ask('profile') },
      };
      break;
  }
  // The client is registered for the scopes it asks for (the scope.* scenarios ask beyond them), and offline_access
  // when it may refresh (the refresh scenarios add it to their requests, as to a hand-written config's clients).
  const registered = new Set(request.entry.scope?.split(' ').filter(Boolean));
  const grantsAsked = request.metadata.grant_types as string[];
  if (registered.size && grantsAsked.includes(GRANT.refresh) && (!supported || supported.includes('offline_access')))
    registered.add('offline_access');
  const scope = registered.size ? { scope: [...registered].join(' ') } : {};
  request.metadata = { ...name, ...scope, ...request.metadata, ...config.registration?.metadata?.[role] };
  return request;
}

export interface RegisterClientsOptions {
  config: TargetConfig;
  target: Target;
  redactor: Redactor;
  /** The roles the selected scenarios need or use when they can (Scenario.requires.roles, optionalRoles). */
  needed: Iterable<ClientRole>;
  /** Lines for the console (the registrations, a role refused, a client left behind). */
  log?: (line: string) => void;
  /** The run plan's request time limit (harness/run/plan.ts). */
  requestTimeoutMs: number;
  fetch?: typeof fetch;
  /** Delete the registered clients on SIGINT and SIGTERM too (the command line; see guardSignals). */
  guardSignals?: boolean;
}

/** The endpoint to register at, or the ConfigError that says which field to set. */
function registrationEndpoint(config: TargetConfig, target: Target): string {
  const configured = config.registration?.endpoint;
  if (configured) return configured;
  const advertised = target.endpoints.registration;
  if (advertised) return advertised;
  throw new ConfigError([
    `registration.endpoint: the discovery document has no registration_endpoint${
      target.discoveryProblem ? ` (it could not be read: ${target.discoveryProblem})` : ''
    }; set "registration": {"enabled": true, "endpoint": "https://idp.example/register"} to the IdP's ` +
      'registration endpoint, or name the clients in "clients"',
  ]);
}

/** The registered clients of one run and their clean-up. */
export class RegistrationSession {
  readonly endpoint: string;
  readonly #http: HttpClient;
  readonly #log: (line: string) => void;
  readonly #registered = new Map<ClientRole, { registration: Registration; entry: ClientEntry }>();
  readonly #refused = new Map<ClientRole, string>();
  readonly #guessedScopes = new Set<ClientRole>();
  #cleanup: Promise<RegistrationSummary['notDeleted']> | undefined;
  #unguard: (() => void) | undefined;

  readonly #redactor: Redactor;

  constructor(endpoint: string, http: HttpClient, log: (line: string) => void, redactor: Redactor) {
    this.endpoint = endpoint;
    this.#redactor = redactor;
    this.#http = http;
    this.#log = log;
  }

  /** Registers one role; a refusal (or a transport failure) is noted, never thrown. */
  async add(role: ClientRole, request: RoleRequest, redactor: Redactor, initialAccessToken?: string): Promise<void> {
    let outcome: Awaited<ReturnType<typeof register>>;
    try {
      outcome = await register(this.#http, this.endpoint, request.metadata, {
        ...(initialAccessToken ? { initialAccessToken } : {}),
        label: `registration of the ${role} client (RFC 7591 §3.1)`,
      });
    } catch (error) {
      const why = error instanceof OffOriginError ? `${error.message}; add its origin to allowedOrigins` : error;
      this.#refused.set(role, redactor.text(`the registration request failed: ${String(why)}`));
      return;
    }
    if (!outcome.ok) {
      this.#refused.set(role, redactor.text(`the IdP refused to register it: ${outcome.problem}`));
      return;
    }
    const r = outcome.value;
    if (r.clientSecret) redactor.add(r.clientSecret, 'client_secret');
    if (r.registrationAccessToken) redactor.add(r.registrationAccessToken, 'registration_access_token');
    const jwk = request.entry.privateJwk as Record<string, unknown> | undefined;
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi'])
      if (typeof jwk?.[member] === 'string') redactor.add(jwk[member] as string, 'private_key');
    const authMethod =
      request.entry.authMethod ??
      (typeof r.metadata.token_endpoint_auth_method === 'string' &&
      ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'].includes(
        r.metadata.token_endpoint_auth_method,
      )
        ? (r.metadata.token_endpoint_auth_method as ClientEntry['authMethod'])
        : undefined);
    // The scope the IdP states it registered (RFC 7591 §3.2.1) is a fact; without it, the harness's request stands,
    // a guess (Client.scopeGuessed) that no scope rule takes as the client's scope.
    const stated = typeof r.metadata.scope === 'string' ? { scope: r.metadata.scope } : {};
    if (!('scope' in stated)) this.#guessedScopes.add(role);
    const entry: ClientEntry = {
      ...request.entry,
      ...stated,
      clientId: r.clientId,
      ...(r.clientSecret && authMethod !== 'none' && authMethod !== 'private_key_jwt'
        ? { clientSecret: r.clientSecret }
        : {}),
      ...(authMethod ? { authMethod } : {}),
    };
    this.#registered.set(role, { registration: r, entry });
  }

  /** The config the scenarios run with: the configured clients and the registered ones. */
  withClients(config: TargetConfig): TargetConfig {
    const added = Object.fromEntries([...this.#registered].map(([role, { entry }]) => [role, entry]));
    return { ...config, clients: { ...config.clients, ...added } };
  }

  /** Why a role's scenarios cannot run: the IdP's refusal. */
  get refused(): ReadonlyMap<ClientRole, string> {
    return this.#refused;
  }

  /** Registered roles whose scope the registration response did not state: the harness's request is a guess. */
  get guessedScopes(): ReadonlySet<ClientRole> {
    return this.#guessedScopes;
  }

  get registeredRoles(): ClientRole[] {
    return [...this.#registered.keys()];
  }

  /**
   * Deletes every registered client (RFC 7592 §2.3), once however often it is called; the ones that could not be
   * deleted, with why (each also a console line).
   */
  cleanup(): Promise<RegistrationSummary['notDeleted']> {
    this.#cleanup ??= Promise.all(
      [...this.#registered].map(async ([role, { registration }]) => {
        const why = unmanageable(registration) ?? (await this.#delete(registration));
        return why === undefined ? [] : [{ role, clientId: registration.clientId, reason: this.#redactor.text(why) }];
      }),
    ).then((lists) => {
      this.#unguard?.();
      const notDeleted = lists.flat();
      for (const n of notDeleted)
        this.#log(`registration: could not delete client_id ${n.clientId} (${n.role}): ${n.reason}; delete it by hand`);
      const deleted = this.#registered.size - notDeleted.length;
      if (deleted) this.#log(`registration: deleted ${deleted} registered client${deleted === 1 ? '' : 's'}`);
      return notDeleted;
    });
    return this.#cleanup;
  }

  async #delete(registration: Registration): Promise<string | undefined> {
    try {
      const outcome = await remove(this.#http, registration, {
        label: `deletion of a registered client (RFC 7592 §2.3)`,
      });
      return outcome.ok ? undefined : outcome.problem;
    } catch (error) {
      return `the delete request failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  /** The summary report.json carries (after cleanup: with the clients left behind). */
  async summary(): Promise<RegistrationSummary> {
    return {
      endpoint: this.endpoint,
      registered: [...this.#registered].map(([role, { registration }]) => ({ role, clientId: registration.clientId })),
      refused: [...this.#refused].map(([role, reason]) => ({ role, reason })),
      notDeleted: await this.cleanup(),
    };
  }

  /**
   * Until the clean-up is done: on SIGINT or SIGTERM, delete the registered clients, then let the signal
   * do what it would have done (another listener's choice, else exit with 128 + its number).
   */
  guardSignals(): void {
    const signals = ['SIGINT', 'SIGTERM'] as const;
    const numbers = { SIGINT: 2, SIGTERM: 15 } as const;
    const handler = (signal: (typeof signals)[number]) => {
      uninstall();
      this.#log(`registration: ${signal}: deleting the registered clients before stopping`);
      void this.cleanup().finally(() => {
        if (process.listenerCount(signal) > 0) process.kill(process.pid, signal);
        else process.exit(128 + numbers[signal]);
      });
    };
    const uninstall = () => {
      for (const s of signals) process.off(s, handler);
    };
    for (const s of signals) process.on(s, handler);
    this.#unguard = uninstall;
  }
}

/**
 * Registers the clients the run needs (rolesToRegister) and returns the session, or undefined when registration is
 * off or no role needs registering. Throws ConfigError when there is no registration endpoint to use.
 */
export async function registerClients(options: RegisterClientsOptions): Promise<RegistrationSession | undefined> {
  const { config, target, redactor } = options;
  const roles = rolesToRegister(config, options.needed);
  if (!roles.length) return undefined;
  if (!target.discovery && !config.registration?.endpoint) {
    throw new HarnessError(
      `cannot register clients: the discovery document could not be read (${target.discoveryProblem})`,
    );
  }
  const endpoint = registrationEndpoint(config, target);
  const http = new HttpClient({
    recorder: new Recorder(redactor),
    requestTimeoutMs: options.requestTimeoutMs,
    origins: target.origins,
    limits: config.limits,
    fetch: options.fetch,
  });
  const log = options.log ?? (() => undefined);
  const session = new RegistrationSession(endpoint, http, log, redactor);
  if (options.guardSignals) session.guardSignals();
  const loopback = `http://127.0.0.1:${await unusedLoopbackPort()}`;
  // One at a time: an IdP that rate-limits registration is not flooded.
  for (const role of roles)
    await session.add(
      role,
      roleRequest(role, target, loopback, config),
      redactor,
      config.registration?.initialAccessToken,
    );
  const done = session.registeredRoles;
  if (done.length) log(`registration: registered ${done.join(', ')} at ${endpoint}`);
  for (const [role, reason] of session.refused) log(`registration: ${role} not registered: ${reason}`);
  return session;
}

/**
 * The logout URIs the first confidential client registers where discovery offers the feature (OIDC Back-Channel
 * Logout §2.2, Front-Channel Logout §2), both with sid required: the back-channel one on the loopback port, where
 * logout.back-channel listens during its run; the front-channel one is never loaded.
 */
function logoutRegistration(
  discovery: Record<string, unknown> | undefined,
  base: string,
): { metadata: Record<string, unknown>; entry: Pick<ClientEntry, 'backchannelLogoutUri' | 'frontchannelLogoutUri'> } {
  const back = discovery?.backchannel_logout_supported === true ? `${base}/backchannel-logout` : undefined;
  const front = discovery?.frontchannel_logout_supported === true ? `${base}/frontchannel-logout` : undefined;
  return {
    metadata: {
      ...(back === undefined ? {} : { backchannel_logout_uri: back, backchannel_logout_session_required: true }),
      ...(front === undefined ? {} : { frontchannel_logout_uri: front, frontchannel_logout_session_required: true }),
    },
    entry: {
      ...(back === undefined ? {} : { backchannelLogoutUri: back }),
      ...(front === undefined ? {} : { frontchannelLogoutUri: front }),
    },
  };
}
