/**
 * The reference as a fixture for a team's own client: a clock that can travel, a hook that shapes
 * issued tokens' claims (and can never switch off a check), a test login that yields an
 * authorization code without the HTML pages, and the opt-in auto-login of the authorization
 * endpoint. Each goes through the same checks, store and bindings as a real login.
 */
import type Router from '@koa/router';
import { PROTECTED_CLAIMS } from './claim-shapes.ts';
import type { ServerContext } from './context.ts';
import { checkAuthorizationRequest, checkAuthorizationRequestWithSession } from './endpoints/authorize.ts';
import { issueCode, redirectToClient } from './endpoints/authorization-response.ts';
import type { ReferenceOptions, UserConfig } from './options.ts';

export { PROTECTED_CLAIMS } from './claim-shapes.ts';
export type { ShapeClaims, ShapeContext, TokenKind } from './options.ts';

const PROTECTED = new Set<string>(PROTECTED_CLAIMS);
import { parseScope } from './scopes.ts';
import { randomToken } from './tokens.ts';

/**
 * The server's clock (epoch milliseconds): the base clock (`options.now`, else Date.now) plus an
 * offset that tests move. Everything that expires reads it: codes, tokens, refresh tokens, device
 * and sign-in requests, key rotation. A client library checks iat/exp/nbf against its own clock,
 * so after a large jump tell it the skew (openid-client: `config[client.ClockSkew] = seconds`).
 */
export class Clock {
  #offset = 0;
  readonly #base: () => number;

  constructor(base: () => number = Date.now) {
    this.#base = base;
  }

  /** The server's current time, epoch milliseconds. */
  readonly now = (): number => this.#base() + this.#offset;

  /** Moves the server's time by `ms` (negative goes back). */
  advance(ms: number): void {
    if (!Number.isFinite(ms)) throw new TypeError(`clock.advance: ${ms} is not a finite number of milliseconds`);
    this.#offset += ms;
  }

  /** Sets the server's time to `epochMs` (it keeps running from there). */
  set(epochMs: number | Date): void {
    const target = typeof epochMs === 'number' ? epochMs : epochMs.getTime();
    if (!Number.isFinite(target)) throw new TypeError('clock.set: not a valid time');
    this.#offset = target - this.#base();
  }

  /** Back to the base clock. */
  reset(): void {
    this.#offset = 0;
  }

  /** Milliseconds the server is ahead of the base clock (negative: behind). */
  get offset(): number {
    return this.#offset;
  }
}

/** OIDC Core §5.4 style: a scope and the user claims it releases, from the options. */
export type ScopeClaims = Readonly<Record<string, readonly string[]>>;

/** Refuses fixture options that would let a user claim stand in for a protected one. Throws on the first problem. */
export function checkFixtureOptions(options: ReferenceOptions, users: readonly UserConfig[]): void {
  for (const user of users) {
    for (const name of Object.keys(user.claims)) {
      if (PROTECTED.has(name))
        throw new Error(`user "${user.username}": the claim "${name}" is set by the server, not by the user's claims`);
    }
  }
  for (const [scope, claims] of Object.entries(options.scopeClaims ?? {})) {
    if (parseScope(scope).length !== 1) throw new Error(`scopeClaims: "${scope}" is not a single scope value`);
    for (const name of claims) {
      if (PROTECTED.has(name))
        throw new Error(
          `scopeClaims.${scope}: the claim "${name}" is set by the server and cannot be released by a scope`,
        );
    }
  }
  if (options.autoLogin !== undefined && !users.some((user) => user.username === options.autoLogin)) {
    throw new Error(`autoLogin: no user "${options.autoLogin}"`);
  }
}

/** What `testLogin` is asked: the authorization request a client would send, and who signs in. */
export interface TestLoginRequest {
  clientId: string;
  redirectUri: string;
  /** Space-separated; checked against the client's allowed scope like at GET /auth. */
  scope?: string;
  /** The username; default: the first user. */
  user?: string;
  /** Required where GET /auth requires it (public and third-party clients). */
  codeChallenge?: string;
  codeChallengeMethod?: 'S256';
  nonce?: string;
  state?: string;
  /** RFC 8707 §2.1: the resources the code is for (the token request may pick one; one alone is the audience). */
  resources?: string[];
}

export interface TestLoginResult {
  code: string;
  /** The redirect the authorization endpoint would send: redirect_uri with code, state and iss. */
  callbackUrl: URL;
}

/**
 * An authorization code for `request.user` as if they had signed in (and consented) at the pages:
 * the request passes the checks of GET /auth, and the code is stored with every binding a real
 * login gives it (client, redirect_uri, scope, nonce, PKCE challenge, auth_time). Rejects with the
 * OAuthError that GET /auth would have answered.
 */
export async function testLogin(server: ServerContext, request: TestLoginRequest): Promise<TestLoginResult> {
  const username = request.user ?? server.users[0]?.username;
  const user = username === undefined ? undefined : server.findUser(username);
  if (!user) throw new Error(`testLogin: no user "${username ?? ''}"`);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
  });
  const optional = {
    scope: request.scope,
    code_challenge: request.codeChallenge,
    code_challenge_method: request.codeChallengeMethod,
    nonce: request.nonce,
    state: request.state,
  };
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) query.set(name, value);
  for (const resource of request.resources ?? []) query.append('resource', resource);
  const checked = await checkAuthorizationRequest(server, query);
  const code = await loggedInCode(server, checked, user);
  const callbackUrl = new URL(checked.redirectUri);
  callbackUrl.searchParams.set('code', code);
  if (checked.state !== undefined) callbackUrl.searchParams.set('state', checked.state);
  callbackUrl.searchParams.set('iss', server.issuer);
  return { code, callbackUrl };
}

type CheckedRequest = Awaited<ReturnType<typeof checkAuthorizationRequest>>;

function loggedInCode(server: ServerContext, request: CheckedRequest, user: UserConfig): Promise<string> {
  const now = server.now();
  return issueCode(server, {
    ...request,
    id: randomToken(),
    expiresAt: now,
    sub: user.sub,
    authTime: Math.floor(now / 1000),
  });
}

/**
 * `autoLogin: username`: GET /auth signs that user in (and consents) without showing a page, and
 * redirects with the code, as a headless IdP where the user is always signed in would (OIDC Core
 * §3.1.2.1):
 * - prompt=none: no page is needed, so it answers with a code (never login_required);
 * - prompt=login, and max_age (any value, 0 too): the user re-authenticates silently, so auth_time
 *   is the current server time; the ID token always carries auth_time;
 * - id_token_hint naming this user: a code; naming another user: not answered for this one, the
 *   request goes on to the normal endpoint (login page, or login_required with prompt=none).
 * A request GET /auth would refuse (a malformed prompt, max_age or hint too), or one for tokens
 * (implicit), goes on to the normal endpoint, which answers it as always. Mounted before the
 * endpoints, only when set.
 */
export function mountAutoLogin(router: Router, server: ServerContext): void {
  const username = server.options.autoLogin;
  if (username === undefined) return;
  router.get('/auth', async (ctx, next) => {
    let checked: Awaited<ReturnType<typeof checkAuthorizationRequestWithSession>>;
    try {
      checked = await checkAuthorizationRequestWithSession(server, new URLSearchParams(ctx.querystring));
    } catch {
      return next();
    }
    const { request, session } = checked;
    const user = server.findUser(username);
    // Only a code answered in the query: anything else goes through the pages.
    if ((request.responseType ?? 'code') !== 'code' || (request.responseMode ?? 'query') !== 'query' || !user)
      return next();
    if (session.hint && session.hint.sub !== user.sub) return next();
    const code = await loggedInCode(server, request, user);
    const target = {
      redirectUri: request.redirectUri,
      ...(request.state === undefined ? {} : { state: request.state }),
    };
    await redirectToClient(ctx, server, target, { code });
  });
}
