/**
 * OpenID Connect Core set-ups and conditions shared by the prompt, max_age, id_token_hint and
 * logout scenarios: a signed-in login session, requests answered without interaction, and the
 * ID token claims they compare.
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  type AuthorizeResult,
  type Capability,
  CheckFailure,
  type Client,
  type ClientRole,
  type LoginSession,
  type Params,
  PreconditionError,
  type ScenarioContext,
  type TokenSet,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import type { Rule } from './oauth.ts';
import { redeem, tokensOf } from './modern.ts';
import { withOpenid } from './scope.ts';
import { NO_INTERACTION_ERRORS as OIDC_NO_INTERACTION_ERRORS } from '../../protocol/errors.ts';

/** What a code flow with an ID token needs from discovery. */
export const CODE_FLOW_CAPABILITIES: readonly Capability[] = [
  'grant:authorization_code',
  'endpoint:authorization',
  'endpoint:token',
];

/** The errors OIDC Core §3.1.2.6 defines for a request that cannot be answered without the user. */
export const NO_INTERACTION_ERRORS: readonly string[] = OIDC_NO_INTERACTION_ERRORS;

export interface SignedIn {
  client: Client;
  session: LoginSession;
  tokens: TokenSet;
  idToken: string;
  /** The ID token's claims (decoded; the id-token scenarios judge its signature). */
  claims: Record<string, unknown>;
}

/** PKCE parameters (S256) that every IdP accepts and some require. */
export function pkceParams(ctx: ScenarioContext): Params {
  const pkce = ctx.pkce.create();
  return { code_challenge: pkce.challenge, code_challenge_method: pkce.method };
}

/** The code flow as `role`, in `session` (a new one by default): the user logs in, and the session keeps the login. */
export async function signIn(
  ctx: ScenarioContext,
  role: ClientRole = 'confidential',
  options: { session?: LoginSession; params?: Params } = {},
): Promise<SignedIn> {
  const client = ctx.client(role);
  const session = options.session ?? ctx.loginSession();
  const { tokens } = await ctx.flows.tokens(role, {
    scope: withOpenid(client.scope),
    session,
    params: { nonce: ctx.random(), ...options.params },
  });
  return { client, session, tokens, ...idTokenOf(ctx, tokens, `the code flow as ${role}`) };
}

/** The ID token of a token response and its claims; none is a PreconditionError. */
export function idTokenOf(
  ctx: ScenarioContext,
  tokens: TokenSet,
  what: string,
): { idToken: string; claims: Record<string, unknown> } {
  if (typeof tokens.id_token !== 'string' || !tokens.id_token)
    throw new PreconditionError(`${what} with scope openid returned no id_token`);
  return { idToken: tokens.id_token, claims: ctx.jwt.decode(tokens.id_token).payload };
}

/** Redeems the code of an authorization answer as `role` (set-up: a failure is a PreconditionError). */
export async function redeemOutcome(
  ctx: ScenarioContext,
  role: ClientRole,
  outcome: AuthorizeResult,
  verifier: string | undefined,
  what: string,
): Promise<TokenSet> {
  const code = outcome.kind === 'redirect' ? outcome.params.code : undefined;
  if (!code) throw new PreconditionError(`${what} ${describeOutcome(outcome)}; a code was needed`);
  const pkce = verifier === undefined ? {} : { pkce: { verifier } };
  return tokensOf(
    await redeem(
      ctx,
      ctx.client(role),
      { code, request: outcome.request, ...pkce },
      undefined,
      `token request (${what})`,
    ),
    what,
  );
}

/** An authorization request as `role` in `session` with S256 PKCE; returns the outcome and the verifier. */
export async function authorizeInSession(
  ctx: ScenarioContext,
  role: ClientRole,
  session: LoginSession,
  params: Params,
  options: { interact?: boolean; signIn?: boolean } = {},
): Promise<{ outcome: AuthorizeResult; verifier: string }> {
  const pkce = ctx.pkce.create();
  const client = ctx.client(role);
  const outcome = await ctx.authorize(
    role,
    {
      scope: withOpenid(client.scope),
      nonce: ctx.random(),
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
      ...params,
    },
    {
      session,
      ...(options.interact === undefined ? {} : { interact: options.interact }),
      ...(options.signIn === undefined ? {} : { signIn: options.signIn }),
    },
  );
  return { outcome, verifier: pkce.verifier };
}

/** A redirect back with a code and no page on the way (OIDC Core §3.1.2.1 prompt=none). */
export function expectSilentCode(outcome: AuthorizeResult, rule: Rule): string {
  if (outcome.kind === 'redirect' && outcome.params.code && outcome.pages.length === 0) return outcome.params.code;
  const shown = outcome.pages.length ? ` after the ${outcome.pages.join(' and ')} page` : '';
  throw new CheckFailure(
    `${rule.when} ${describeOutcome(outcome)}${shown}; ${rule.per.label} requires a code without any page, since ` +
      `the user is signed in.`,
    { requirement: rule.per, kind: rule.kind ?? 'refused-wrongly' },
  );
}

/** The ID token's auth_time as a number, or a failure naming the rule that requires it. */
export function expectAuthTime(claims: Record<string, unknown>, rule: Rule): number {
  const value = claims.auth_time;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new CheckFailure(
    `${rule.when} returned an ID ` +
      `token ${value === undefined ? 'without auth_time' : `with auth_time ${JSON.stringify(value)}`}; ` +
      `${rule.per.label} requires auth_time (a number of seconds) in it.`,
    { requirement: rule.per, kind: rule.kind ?? 'refused-wrongly' },
  );
}

/** The same user: both ID tokens carry the same sub. */
export function expectSameSub(first: Record<string, unknown>, second: Record<string, unknown>, rule: Rule): void {
  if (second.sub === first.sub) return;
  throw new CheckFailure(
    `${rule.when} returned an ID token for sub ${JSON.stringify(second.sub)}, not the signed-in ` +
      `user's ${JSON.stringify(first.sub)}; ${rule.per.label} requires the session's user.`,
    { requirement: rule.per, kind: rule.kind ?? 'accepted' },
  );
}

/**
 * Waits until a later second has certainly begun at the IdP: auth_time and max_age count whole
 * seconds, so a second login can only show a later auth_time after this (not a timing assertion).
 */
export const nextSecond = (seconds = 1) => delay(seconds * 1000 + 200);
