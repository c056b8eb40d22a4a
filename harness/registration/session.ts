import { unusedLoopbackPort } from '../http/ports.ts';
import { DEFAULT_REGISTERED_ROLES } from '../config/registration-schema.ts';
import type { ClientEntry, TargetConfig } from '../config/schema.ts';
import { ConfigError, HarnessError } from '../model/failures.ts';
import { HttpClient, OffOriginError } from '../http/client.ts';
import { Recorder } from '../http/recorder.ts';
import type { Redactor } from '../redact/redact.ts';
import type { RegistrationSummary } from '../model/results.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { Target } from '../target/target.ts';
import { type Registration, register, remove, unmanageable } from './client.ts';
import { type RoleRequest, roleRequest } from './role-request.ts';
import { isOneOf } from '../../protocol/guards.ts';
import { AUTH_METHODS } from '../config/clients-schema.ts';

/** The roles to register: those the scenarios need, registration.roles allows, and the config does not name. */
export function rolesToRegister(config: TargetConfig, needed: Iterable<ClientRole>): ClientRole[] {
  if (!config.registration?.enabled) return [];
  const allowed: readonly ClientRole[] = config.registration.roles ?? DEFAULT_REGISTERED_ROLES;
  const wanted = new Set(needed);
  return allowed.filter((role) => wanted.has(role) && !config.clients[role]);
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
    const jwk = request.entry.privateJwk;
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) {
      const secret = jwk?.[member];
      if (typeof secret === 'string') redactor.add(secret, 'private_key');
    }
    const statedMethod = r.metadata.token_endpoint_auth_method;
    const authMethod = request.entry.authMethod ?? (isOneOf(AUTH_METHODS, statedMethod) ? statedMethod : undefined);
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
