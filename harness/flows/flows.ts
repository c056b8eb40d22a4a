/**
 * The authorization request (ctx.authorize) and the flows most scenarios start from (ctx.flows). They are set-up, not
 * the check: a step that does not work is a PreconditionError, so the scenario reports `error` with the cause instead
 * of blaming the requirement it was about to test.
 *
 * ctx.authorize pushes the request first (RFC 9126) when asked or required, then has the login driver walk it. A
 * shortcut never changes a verdict: a walk that starts from the run's shared session (a sign-in, and a consent, the
 * IdP may remember from an earlier walk) is only a faster way to the same redirect. When it does not get there — it
 * stops on a page (a "signed in as … — Continue / Logout" page the configured steps do not fit, an error the shared
 * session caused), or it throws — it is done again on a fresh session before anything is judged, and the evidence
 * says so (a "walk record" note). Only the fresh walk's outcome is returned.
 *
 * ctx.flows.code and ctx.authorize reach the driver from this file, and the driver the wire in four more
 * (docs/ARCHITECTURE.md, "From a scenario to the wire").
 */
import type { Client } from '../config/load.ts';
import { type DeviceFlowContext, requestDeviceAuthorization, startDeviceFlow } from './device.ts';
import { PreconditionError, describeError } from '../model/failures.ts';
import { createPkce } from '../tokens/pkce.ts';
import { tokenSetOf } from './token-set.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { AuthorizeResult, CodeFlowOptions, CodeResult, Flows } from './types.ts';
import type { AuthorizeOptions, AuthorizeOutcome, LoginDriver } from '../login/driver.ts';
import type { LoginSession } from '../login/session.ts';
import type { HttpClient } from '../http/client.ts';
import type { Params } from '../http/request.ts';
import { pushRequest, pushedAuthorizationUrl, pushedRequestOf, refusedPush, requiresPar } from './par.ts';
import { GRANT, type Target } from '../target/target.ts';

/** What the flows use of the scenario's context (ScenarioContext has all of it). */
export interface FlowContext extends DeviceFlowContext {
  authorize(role: ClientRole, params?: Params, options?: AuthorizeOptions): Promise<AuthorizeResult>;
}

export function describeOutcome(outcome: AuthorizeResult): string {
  if (outcome.kind === 'redirect') {
    const { error, error_description: d } = outcome.params;
    if (error) return `redirected with error=${error}${d ? ` (${d})` : ''}`;
    return outcome.params.code ? 'redirected with a code' : 'redirected without a code';
  }
  const headline = outcome.headline ? ` "${outcome.headline}"` : '';
  return `stopped at ${outcome.url} (HTTP ${outcome.status}${headline}): ${outcome.reason}`;
}

/**
 * Whether a code flow may start from the run's shared session: only without prompt. Any prompt starts fresh, and so
 * does a deny. prompt=consent alone asks for a consent page, not a sign-in (OIDC Core §3.1.2.1), but while it shared
 * the session, oidc-provider once answered a consent interaction with HTTP 500 under load (never seen with fresh
 * sessions; the cause is not proven): such a flow gets a session of its own.
 */
export function sharesSignIn(prompt: string | undefined): boolean {
  return prompt === undefined;
}

/** The label of the evidence note that records a shared walk done again on a fresh session. */
export const WALK_RECORD = 'walk record';

/** Whether a walk with these options starts from the run's shared session (and so may be done again fresh). */
export function startsShared(options: AuthorizeOptions, shared: LoginSession | undefined): boolean {
  // interact: false asks for an answer without any page: a page is the answer, never a reason to sign in afresh.
  return (
    options.session === 'shared' && shared !== undefined && shared.remembers !== false && options.interact !== false
  );
}

/** Why a shared walk is done again, or undefined when it reached the redirect URI. */
function whyAgain(outcome: AuthorizeOutcome): string | undefined {
  if (outcome.kind === 'redirect') return undefined;
  return `stopped at ${outcome.url.split('?')[0]} (HTTP ${outcome.status}): ${outcome.reason}`;
}

/**
 * Runs `walk` from the shared session when `options` ask for it, and again on a fresh session when that walk does not
 * reach the redirect URI; `record` gets the walk record. A walk cut short by the scenario's end (`signal` aborted) is
 * not done again.
 */
export async function sharedOrFresh<T extends AuthorizeOutcome>(
  options: AuthorizeOptions,
  shared: LoginSession | undefined,
  walk: (options: AuthorizeOptions) => Promise<T>,
  record: (text: string) => void,
  signal?: AbortSignal,
): Promise<T> {
  if (!startsShared(options, shared)) return walk(options);
  let why: string | undefined;
  try {
    const outcome = await walk(options);
    why = whyAgain(outcome);
    if (!why) return outcome;
  } catch (error) {
    if (signal?.aborted) throw error;
    why = `failed: ${describeError(error)}`;
  }
  record(
    "This authorization started from the run's shared session (a sign-in remembered from an earlier walk) and " +
      `${why}. ` +
      'A shared session is a shortcut that must never change a verdict, so the walk was done again on a fresh ' +
      'session (the user signs in afresh); only that walk is judged.',
  );
  return walk({ ...options, session: 'fresh' });
}

/** What ctx.authorize is built with: the scenario's HTTP client, target, clients, driver, session and evidence. */
export interface AuthorizerParts {
  http: HttpClient;
  target: Target;
  client: (role: ClientRole) => Client;
  /** ctx.authorizationUrl: the request's URL and parameters. */
  authorizationUrl: (role: ClientRole, params?: Params) => { url: string; request: Record<string, string> };
  /** The login driver that walks (made on first use). */
  driver: () => LoginDriver;
  /** The run's shared IdP session, when there is one. */
  session: LoginSession | undefined;
  /** The scenario's signal: a walk cut short by the scenario's end is not done again. */
  signal?: AbortSignal;
  /** A walk is under way (the scenario's activity, for a timeout's message): the returned function ends it. */
  begin(what: string): () => void;
  /** Notes a walk record in the evidence and the log. */
  record(text: string): void;
  /** Fields the redactor learns (a form_post's, which came in a page body). */
  learn(fields: Record<string, string>): void;
}

/** The activity a driver's walk is tracked as. */
export function walkActivity(driver: string, url: string): string {
  return `${driver} login walk (${url.split('?')[0]})`;
}

/**
 * ctx.authorize through one driver: pushed first (RFC 9126) when asked or required, then walked; a walk from the run's
 * shared session that does not reach the redirect URI is done again, pushed again, on a fresh one.
 */
export class Authorizer {
  constructor(private readonly p: AuthorizerParts) {}

  /** ctx.authorize (bound: it is handed around as a function). */
  readonly authorize = (
    role: ClientRole,
    params: Params = {},
    options: AuthorizeOptions = {},
  ): Promise<AuthorizeResult> =>
    sharedOrFresh(options, this.p.session, (opts) => this.#once(role, params, opts), this.p.record, this.p.signal);

  /** One authorization: the request built (pushed first when asked or required) and walked by the driver. */
  async #once(role: ClientRole, params: Params, options: AuthorizeOptions): Promise<AuthorizeResult> {
    const { http, target, client } = this.p;
    const driver = this.p.driver();
    let { url, request } = this.p.authorizationUrl(role, params);
    const stopAt = [request.redirect_uri, client(role).redirectUri].filter((u): u is string => !!u);
    // RFC 9126: pushed first when asked, or when the target requires it of every request.
    if (options.par ?? requiresPar(target)) {
      const res = await pushRequest(http, target, client(role), request);
      const pushed = pushedRequestOf(res);
      if (!pushed) return { ...refusedPush(res, res.url), request };
      url = pushedAuthorizationUrl(target, client(role).clientId, pushed.requestUri);
    }
    const end = this.p.begin(walkActivity(driver.name, url));
    let outcome: AuthorizeOutcome;
    try {
      outcome = await driver.authorize(url, stopAt, options);
    } finally {
      end();
    }
    // A form_post's fields came in a page body, where the redactor learns nothing by itself.
    if (outcome.kind === 'redirect' && outcome.formFields) this.p.learn(outcome.formFields);
    return { ...outcome, request };
  }
}

export function createFlows(ctx: FlowContext): Flows {
  const code = async (role: ClientRole, options: CodeFlowOptions = {}): Promise<CodeResult> => {
    const pkce = options.pkce === false ? undefined : createPkce();
    const outcome = await ctx.authorize(
      role,
      {
        ...(options.scope ? { scope: options.scope } : {}),
        ...(pkce ? { code_challenge: pkce.challenge, code_challenge_method: pkce.method } : {}),
        ...options.params,
      },
      {
        ...(options.consent ? { consent: options.consent } : {}),
        session:
          options.session ?? (options.consent !== 'deny' && sharesSignIn(options.params?.prompt) ? 'shared' : 'fresh'),
      },
    );
    if (outcome.kind !== 'redirect' || !outcome.params.code) {
      throw new PreconditionError(
        `the authorization request as ${role} ${describeOutcome(outcome)}; a code was needed to go on`,
      );
    }
    return { code: outcome.params.code, ...(pkce ? { pkce } : {}), request: outcome.request, response: outcome.params };
  };
  return {
    code,
    async tokens(role, options = {}) {
      const got = await code(role, options);
      const res = await ctx.http.token(
        ctx.client(role),
        {
          grant_type: GRANT.code,
          code: got.code,
          redirect_uri: got.request.redirect_uri,
          code_verifier: got.pkce?.verifier,
        },
        { label: 'token request (authorization_code)' },
      );
      const tokens = tokenSetOf(res, `redeeming the code as ${role}`);
      // Observed behaviour is evidence too: a refresh token enables the refresh scenarios for this client.
      if (tokens.refresh_token)
        ctx.target.observe(role, 'grant:refresh_token', `a refresh_token in a token response to the ${role} client`);
      return { ...got, tokens };
    },
    async clientCredentials(role, scope) {
      const client = ctx.client(role);
      const res = await ctx.http.token(client, {
        grant_type: GRANT.clientCredentials,
        scope: scope ?? (client.scope || undefined),
      });
      return tokenSetOf(res, `client_credentials as ${role}`);
    },
    deviceAuthorization: (role, options) => requestDeviceAuthorization(ctx, role, options),
    device: (role, options) => startDeviceFlow(ctx, role, options),
  };
}
