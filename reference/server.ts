/**
 * createReferenceServer: composes options, keys, store, tokens and endpoints into a Koa app.
 * The app can be served by listen() or handed to supertest via app.callback().
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type Server } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import type { ServerContext } from './context.ts';
import { ENDPOINTS } from './endpoints/index.ts';
import {
  checkFixtureOptions,
  Clock,
  mountAutoLogin,
  testLogin,
  type TestLoginRequest,
  type TestLoginResult,
} from './fixture.ts';
import { Flaws } from './flaws.ts';
import { Variants } from './variants.ts';
import { errorHandler } from './http/errors.ts';
import { drainable, type Drainable } from './http/drain.ts';
import { healthRoutes } from './http/health.ts';
import { retryAfterOn503 } from './http/outage.ts';
import { SLOW_MS, slowResponses } from './http/slow.ts';
import { withoutErrorDescriptions } from './http/without-descriptions.ts';
import { baseHeaders, setBaseHeaders } from './http/headers.ts';
import { KeySet } from './keys.ts';
import { resolveClients } from './clients.ts';
import { resolveLifetimes } from './lifetimes.ts';
import type { ReferenceOptions } from './options.ts';
import type { SigningAlg } from './keys.ts';
import { SEEDED_USER } from './seeded-user.ts';
import { clientOfRegistration, registrationSettings } from './registration.ts';
import { securitySettings } from './security-profile.ts';
import { ClientMetadataDocuments, isClientIdUrl } from './mcp/cimd.ts';
import { mcpRoutes } from './mcp/resource-server.ts';
import { MemoryStore } from './store/memory.ts';
import { guardStore } from './store/outage.ts';
import { TokenService } from './tokens.ts';

export interface ReferenceServer {
  readonly app: Koa;
  /** The fixed issuer, or http://host:port after listen(); throws before that. */
  readonly issuer: string;
  /** Configuration and services (store, keys, tokens, clients): for tests and extensions. */
  readonly context: ServerContext;
  /** The server's clock: `clock.advance(ms)` moves its time (codes, tokens and sessions expire by it). */
  readonly clock: Clock;
  /**
   * An authorization code for a user without the login pages: the request passes GET /auth's
   * checks and the code carries every binding a real login gives it (fixture.ts).
   */
  testLogin(request: TestLoginRequest): Promise<TestLoginResult>;
  listen(port?: number, host?: string): Promise<{ issuer: string; port: number }>;
  /** Closes at once: connections, requests in flight and the store. */
  close(): Promise<void>;
  /**
   * A graceful stop (SIGTERM): stops accepting, lets the requests in flight finish within `graceMs` (GET /readyz
   * answers 503 meanwhile), closes the idle connections, then the store. Resolves with the requests cut at the end of
   * the grace period: 0 for a clean stop.
   */
  stop(graceMs: number): Promise<{ cut: number }>;
}

/** The request's host, under the flaw host-header-trusted only. */
const requestHost = new AsyncLocalStorage<string>();

/** `issuer` with its host replaced (an unparseable host leaves it as it is). */
function withHost(issuer: string, host: string): string {
  const url = new URL(issuer);
  url.host = host;
  return url.href.replace(/\/$/, '');
}

export function createReferenceServer(options: ReferenceOptions = {}): ReferenceServer {
  const fixedIssuer = options.issuer === undefined ? undefined : normalizeIssuer(options.issuer);
  let listenIssuer: string | undefined;
  const issuer = (): string => {
    const value = fixedIssuer ?? listenIssuer;
    if (value === undefined) throw new Error('the issuer is not known until listen() (or pass options.issuer)');
    // Set only under the flaw host-header-trusted (below): the host the request named.
    const host = requestHost.getStore();
    return host === undefined ? value : withHost(value, host);
  };
  const deviceAuthUrl =
    options.deviceAuthUrl === undefined ? undefined : normalizeIssuer(options.deviceAuthUrl, 'deviceAuthUrl');
  const clock = new Clock(options.now ?? Date.now);
  const now = clock.now;
  const flaws = new Flaws(options.flaws ?? []);
  const variants = new Variants(options.variants ?? []);
  // The signing-es256 variant: ID tokens and JWT access tokens signed ES256 (Keycloak's realm default algorithm).
  const rs256Beside = variants.has('signing-es256');
  const keys = options.keys ?? KeySet.generate(signingAlgOf(options, variants), { now, rs256Beside });
  const lifetimes = resolveLifetimes(options.lifetimes);
  const clients = resolveClients(options);
  const users = options.users ?? [SEEDED_USER];
  checkFixtureOptions(options, users);
  // A store of its own can be down: each call bounded, an outage answered 503 (store/outage.ts). Memory cannot be.
  const store = options.store
    ? guardStore(options.store, {
        ...(options.storeTimeoutMs === undefined ? {} : { timeoutMs: options.storeTimeoutMs }),
        ...(options.onStoreChange === undefined ? {} : { onChange: options.onStoreChange }),
      })
    : new MemoryStore({ now });
  const registration = registrationSettings(options);
  // MCP: a client_id that is a URL names its Client ID Metadata Document (mcp/cimd.ts).
  const allowLoopback = options.cimdAllowLoopback ?? false;
  const documents = options.mcp
    ? new ClientMetadataDocuments({ flaws, allowLoopback, oauthOnly: options.oauthOnly ?? false, now })
    : undefined;
  const tokens = new TokenService({
    issuer,
    keys,
    flaws,
    lifetimes,
    now,
    scopeClaims: options.scopeClaims,
    shapeClaims: options.shapeClaims,
  });

  const context: ServerContext = {
    get issuer() {
      return issuer();
    },
    get deviceAuthUrl() {
      return deviceAuthUrl ?? issuer();
    },
    options,
    security: securitySettings(options, issuer),
    flaws,
    variants,
    store,
    keys,
    tokens,
    lifetimes,
    clients,
    users,
    now,
    registration,
    async findClient(clientId) {
      const configured = clients.find((client) => client.clientId === clientId);
      if (!configured && documents && isClientIdUrl(clientId, allowLoopback)) return documents.resolve(clientId);
      if (configured || !registration) return configured;
      const record = await store.findClientRegistration(clientId);
      return record && clientOfRegistration(record);
    },
    findUser: (username) => users.find((user) => user.username === username),
    userBySub: (sub) => users.find((user) => user.sub === sub),
    url: (path) => `${issuer()}${path}`,
  };

  const app = new Koa();
  // The issuer's path (https://host/tenant) prefixes every route.
  const prefix = fixedIssuer === undefined ? '' : new URL(fixedIssuer).pathname.replace(/\/$/, '');
  const router = new Router(prefix ? { prefix } : {});
  mountAutoLogin(router, context);
  const mounted = ENDPOINTS.filter((endpoint) => !(endpoint.oidcOnly && options.oauthOnly));
  for (const endpoint of mounted) endpoint.mount(router, context);
  // Hot routes (POST /token): a single exact path check ahead of the router's matching (issue 32, docs/performance.md).
  const hot = new Map(
    mounted.flatMap((endpoint) => {
      const route = endpoint.hotPath?.(context);
      return route ? [[`${route.method} ${prefix}${route.path}`, route.handler] as const] : [];
    }),
  );
  let drain: Drainable | undefined;
  // Flaw host-header-trusted: the issuer, and every URL built on it (metadata, redirects, iss), follows the request's
  // X-Forwarded-Host or Host header instead of the configured or bound issuer.
  if (flaws.has('host-header-trusted'))
    app.use((ctx, next) => requestHost.run(ctx.get('x-forwarded-host').split(',')[0]?.trim() || ctx.host, next));
  app.use(retryAfterOn503);
  app.use(healthRoutes({ store, keys, prefix, stopping: () => drain?.stopping ?? false }));
  if (variants.has('slow')) app.use(slowResponses(options.slowMs ?? SLOW_MS));
  if (variants.has('errors-without-description')) app.use(withoutErrorDescriptions());
  app.use(errorHandler(flaws));
  // The MCP endpoint and its RFC 9728 metadata are at the issuer's origin, not under its path.
  if (options.mcp) app.use(mcpRoutes(context));
  // baseHeaders' headers on a hot route too, without a layer of its own.
  app.use(function hotRoutes(ctx, next) {
    const handler = hot.get(`${ctx.method} ${ctx.path}`);
    if (!handler) return baseHeaders(ctx, next);
    setBaseHeaders(ctx);
    return handler(ctx);
  });
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));

  let server: Server | undefined;
  return {
    app,
    context,
    clock,
    testLogin: (request) => testLogin(context, request),
    get issuer() {
      return issuer();
    },
    async listen(port = 0, host = '127.0.0.1') {
      if (server) throw new Error('the reference server is already listening');
      const listening = createServer();
      // Before the app's handler, so that a response during a stop is marked Connection: close (http/drain.ts).
      drain = drainable(listening);
      listening.on('request', app.callback());
      // Keep idle connections longer than the clients do: with Node's 5 s default, a client that
      // reuses a kept-alive connection just as the server closes it gets ECONNRESET (seen on a
      // loaded machine with undici's fetch, which trusts the Keep-Alive hint to within 1 s).
      listening.keepAliveTimeout = 65_000;
      listening.headersTimeout = 66_000;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => resolve());
      });
      server = listening;
      const address = listening.address();
      if (typeof address !== 'object' || address === null) throw new Error('the server is not listening on a port');
      const bound = address.port;
      listenIssuer ??= `http://${hostForUrl(host)}:${bound}`;
      return { issuer: issuer(), port: bound };
    },
    async stop(graceMs) {
      const draining = drain;
      const result = draining && server ? await draining.stop(graceMs) : { cut: 0 };
      server = undefined;
      await store.close();
      return result;
    },
    async close() {
      await store.close();
      const closing = server;
      server = undefined;
      if (!closing) return;
      await new Promise<void>((resolve, reject) => {
        closing.close((err) => (err ? reject(err) : resolve()));
        closing.closeAllConnections();
      });
    },
  };
}

/** The alg of the signing key: ES256 under the signing-es256 variant, else the option's (RS256 by default). */
function signingAlgOf(options: ReferenceOptions, variants: Variants): SigningAlg {
  if (!variants.has('signing-es256')) return options.signingAlg ?? 'RS256';
  if (options.signingAlg !== undefined && options.signingAlg !== 'ES256')
    throw new Error(`the signing-es256 variant signs with ES256, not signingAlg ${options.signingAlg}`);
  return 'ES256';
}

/**
 * An issuer (and the device_auth_url) is an https (or, for local use, http) URL without query or
 * fragment (OIDC Discovery §3).
 */
function normalizeIssuer(value: string, option = 'issuer'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${option} "${value}" is not a URL`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash) {
    throw new Error(`${option} "${value}" must be an http(s) URL without query or fragment`);
  }
  return url.href.replace(/\/$/, '');
}

/** A wildcard bind address is not reachable by that name: advertise localhost instead. */
function hostForUrl(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}
