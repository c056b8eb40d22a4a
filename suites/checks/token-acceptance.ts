/**
 * Whether the target takes a token where it takes access tokens: userinfo (OIDC Core §5.3),
 * introspection (RFC 7662) and token exchange (RFC 8693). Each place is tried with the genuine
 * token first (the control); a place that refuses the genuine token too cannot show that a forged
 * one is refused, so it is left out with a note. The JWT attacks (RFC 8725) are properties over
 * the forgeries of one kind, each presented at every place that took the genuine token.
 */
import fc from 'fast-check';
import { jwtForgery, type ForgedJwt, type Jwks, type JwtForgeryKind } from '../../generators/index.ts';
import {
  CheckFailure,
  GRANT,
  PreconditionError,
  type ScenarioContext,
  type RequirementRef,
  type ScenarioRequires,
} from '../../harness/scenario/scenario.ts';
import { bearerChallenge, introspectionRequest, readJwt, userinfoRequest } from './presented-tokens.ts';
import { codeFlowScope } from './scope.ts';
import { exchangeRequest } from './token-exchange.ts';
import { errorMessage } from '../../protocol/guards.ts';

export type TokenPlace = 'userinfo' | 'introspection' | 'token exchange';

export interface Acceptance {
  accepted: boolean;
  /** What the place answered, as a sentence part: "userinfo answered HTTP 200 with the user's claims". */
  answer: string;
}

export interface Place {
  name: TokenPlace;
  present(token: string, label: string): Promise<Acceptance>;
}

const is2xx = (status: number) => status >= 200 && status < 300;

/** The places the target offers to the configured clients: userinfo, introspection (confidential), exchange. */
function offeredPlaces(ctx: ScenarioContext): Place[] {
  const places: Place[] = [];
  if (ctx.target.endpoints.userinfo) {
    places.push({
      name: 'userinfo',
      async present(token, label) {
        const res = await userinfoRequest(ctx, token, label);
        const error = bearerChallenge(res)?.error;
        if (is2xx(res.status)) {
          const claims = res.body.sub === undefined ? '' : " with the user's claims";
          return { accepted: true, answer: `userinfo answered HTTP ${res.status}${claims}` };
        }
        // RFC 6750 §3.1: insufficient_scope is the answer to a valid token that lacks a scope.
        if (res.status === 403 && error === 'insufficient_scope')
          return {
            accepted: true,
            answer: 'userinfo answered HTTP 403 insufficient_scope, treating the token as valid',
          };
        return { accepted: false, answer: `userinfo answered HTTP ${res.status}${error ? ` ${error}` : ''}` };
      },
    });
  }
  if (ctx.target.endpoints.introspection && ctx.clients.confidential?.clientSecret !== undefined) {
    places.push({
      name: 'introspection',
      async present(token, label) {
        const res = await introspectionRequest(ctx, 'confidential', token, { label });
        if (res.status === 200 && res.body.active === true)
          return { accepted: true, answer: 'introspection answered active:true' };
        const said =
          res.status === 200
            ? `active:${JSON.stringify(res.body.active)}`
            : `HTTP ${res.status}${typeof res.body.error === 'string' ? ` ${res.body.error}` : ''}`;
        return { accepted: false, answer: `introspection answered ${said}` };
      },
    });
  }
  if (ctx.clients.exchange && ctx.target.supports(`grant:${GRANT.exchange}`)) {
    places.push({
      name: 'token exchange',
      async present(token, label) {
        const res = await exchangeRequest(ctx, token, undefined, label);
        if (is2xx(res.status) && typeof res.body.access_token === 'string')
          return { accepted: true, answer: `token exchange issued a new access token (HTTP ${res.status})` };
        return {
          accepted: false,
          answer:
            `token exchange answered ` +
            `HTTP ${res.status}${typeof res.body.error === 'string' ? ` ${res.body.error}` : ''}`,
        };
      },
    });
  }
  return places;
}

/** The places that take the genuine token (each tried once with it); the others are noted and left out. */
export async function placesTakingToken(ctx: ScenarioContext, genuine: string): Promise<Place[]> {
  const taking: Place[] = [];
  for (const place of offeredPlaces(ctx)) {
    const control = await place.present(genuine, `${place.name} with the genuine access token (control)`);
    if (control.accepted) taking.push(place);
    else
      ctx.evidence.note(
        `Left out ${place.name}: it refused the genuine access token too (${control.answer}), so a refusal there ` +
          `shows nothing about a forged one.`,
      );
  }
  if (taking.length === 0) {
    ctx.skip(
      'no place where the target takes access tokens (userinfo, introspection, token exchange) accepted the genuine ' +
        'token, so there is nowhere to present a forged one',
    );
  }
  return taking;
}

/**
 * `token` is refused at every place; otherwise a failure naming each place that took it. `per` is
 * the rule as the sentence cites it; the scenario's level decides failed or warning.
 */
export async function expectRefusedEverywhere(
  places: readonly Place[],
  token: string,
  what: string,
  per: RequirementRef,
  label: string,
): Promise<void> {
  const answers: Acceptance[] = [];
  for (const place of places) answers.push(await place.present(token, `${place.name} with ${label}`));
  const accepted = answers.filter((a) => a.accepted);
  if (accepted.length > 0) {
    throw new CheckFailure(
      `The target accepted ${what}: ${accepted.map((a) => a.answer).join('; ')}; ${per.label} requires it to ` +
        `be refused.`,
      { requirement: per, kind: 'accepted' },
    );
  }
}

/** What forging from a genuine access token needs (see genuineJwtAccessToken); the places are optional. */
export const FORGERY_REQUIRES: ScenarioRequires = {
  roles: ['confidential'],
  optionalRoles: ['exchange', 'machine'],
  user: true,
  capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
};

/**
 * A JWT access token of the target, asked for as genuineJwtAccessToken says (the code flow as confidential, with its
 * resource, then client_credentials as machine, plain, with its resource or audience): the first that `isJwt`
 * takes, with how it was got, or every way tried when none was.
 */
export async function askForJwtAccessToken(
  ctx: ScenarioContext,
  isJwt: (token: string) => boolean,
): Promise<{ token: string; what: string } | { tried: string[] }> {
  const tried: string[] = [];
  const confidential = ctx.client('confidential');
  const scope = codeFlowScope(ctx.target, confidential.scope);
  const configured = Object.entries(confidential.authorizationParams ?? {})
    .filter(([k]) => k === 'resource' || k === 'audience')
    .map(([k, v]) => `${k}=${v}`);
  const { tokens } = await ctx.flows.tokens('confidential', { scope });
  tried.push(`the code flow as confidential${configured.length ? ` (${configured.join(', ')})` : ''}`);
  if (isJwt(tokens.access_token)) return { token: tokens.access_token, what: tried[tried.length - 1] ?? '' };
  const resource = confidential.resource;
  if (resource && confidential.authorizationParams?.resource !== resource) {
    tried.push(`the code flow as confidential with resource=${resource}`);
    const token = await optional(ctx, async () => {
      const got = await ctx.flows.code('confidential', { scope, params: { resource } });
      const res = await ctx.http.token(
        confidential,
        {
          grant_type: GRANT.code,
          code: got.code,
          redirect_uri: got.request.redirect_uri,
          code_verifier: got.pkce?.verifier,
          resource,
        },
        { label: `token request (authorization_code) with resource=${resource}` },
      );
      return res.body.access_token;
    });
    if (token && isJwt(token)) return { token, what: tried[tried.length - 1] ?? '' };
  }
  const machine = ctx.clients.machine;
  if (machine && ctx.target.supports(`grant:${GRANT.clientCredentials}`)) {
    const asks: Record<string, string>[] = [{}];
    if (machine.resource) asks.push({ resource: machine.resource });
    const audience = machine.authorizationParams?.audience;
    if (audience) asks.push({ audience });
    for (const ask of asks) {
      const shown = Object.entries(ask).map(([k, v]) => `${k}=${v}`);
      tried.push(`client_credentials as machine${shown.length ? ` with ${shown.join(', ')}` : ''}`);
      const token = await optional(ctx, async () => {
        const res = await ctx.http.token(
          machine,
          { grant_type: GRANT.clientCredentials, scope: machine.scope || undefined, ...ask },
          { label: `client_credentials${shown.length ? ` with ${shown.join(', ')}` : ''}` },
        );
        return res.body.access_token;
      });
      if (token && isJwt(token)) return { token, what: tried[tried.length - 1] ?? '' };
    }
  }
  return { tried };
}

/**
 * A genuine JWT access token to forge from, asked for every way the config allows before giving up
 * (many IdPs issue opaque access tokens unless a resource or an audience is named): the code flow as
 * `confidential` (usable at userinfo; with the configured authorizationParams, which may name an
 * `audience` or a `resource`), the same with the client's configured `resource` (RFC 8707, in the
 * authorization and the token request), then a client_credentials token of `machine`, plain and with
 * its `resource` or configured `audience`. Skips when every token is opaque, listing what was tried.
 */
export async function genuineJwtAccessToken(ctx: ScenarioContext): Promise<string> {
  const asked = await askForJwtAccessToken(ctx, (token) => readJwt(token) !== undefined);
  if ('token' in asked) return asked.token;
  const { tried } = asked;
  ctx.evidence.note(`Asked for a JWT access token by: ${tried.join('; ')}. Every access token was opaque.`);
  return ctx.skip(
    `the target's access tokens are opaque, not JWTs, however asked for (tried: ${tried.join('; ')}): there is no ` +
      'JWT to forge from (the RFC 8725 attacks apply to JWTs); a clients.<role>.resource (RFC 8707) or an ' +
      'authorizationParams.audience the IdP issues JWTs for would be tried too',
  );
}

/** An access token from `attempt`, or undefined when it is refused or cannot be made (a premise, not a verdict). */
async function optional(ctx: ScenarioContext, attempt: () => Promise<unknown>): Promise<string | undefined> {
  try {
    const token = await attempt();
    return typeof token === 'string' ? token : undefined;
  } catch (error) {
    if (error instanceof PreconditionError) {
      ctx.log(`asking for a JWT access token: ${error.message}`);
      return undefined;
    }
    throw error;
  }
}

export interface ForgeryRule {
  /** The rule, as the scenario declared it (ctx.req.<name>). */
  per: RequirementRef;
}

/**
 * The property: every forgery of `kinds`, made from a genuine access token of the target and its
 * JWKS (generators/jwt-forgery.ts), is refused at every place that takes the genuine token. A
 * counterexample names the kind and variant that got through.
 */
export async function expectForgeriesRefused(
  ctx: ScenarioContext,
  kinds: readonly JwtForgeryKind[],
  rule: ForgeryRule,
): Promise<void> {
  const genuine = await genuineJwtAccessToken(ctx);
  const jwks = kinds.includes('hs256-key-confusion') ? await targetJwks(ctx) : { keys: [] };
  const places = await placesTakingToken(ctx, genuine);
  let forgeries: fc.Arbitrary<ForgedJwt>;
  try {
    forgeries = jwtForgery(genuine, jwks, { kinds });
  } catch (error) {
    return ctx.skip(
      `no forgery of kind ${kinds.join(', ')} can be made from this token and JWKS (${errorMessage(error)})`,
    );
  }
  const shown = forgeries.map((f) => Object.assign(f, { [fc.toStringMethod]: () => `${f.kind} ${f.variant}` }));
  await ctx.property(
    shown,
    (forged) =>
      expectRefusedEverywhere(
        places,
        forged.token,
        `a forgery of its own access token (${forged.description})`,
        rule.per,
        `a forged token (${forged.kind} ${forged.variant})`,
      ),
    { label: `forgeries of kind ${kinds.join(', ')}` },
  );
}

async function targetJwks(ctx: ScenarioContext): Promise<Jwks> {
  try {
    return (await ctx.jwt.jwks()) as Jwks;
  } catch (error) {
    if (error instanceof CheckFailure)
      throw new PreconditionError(
        `the JWKS, needed to forge with its public keys, could not be read: ${error.message}`,
      );
    throw error;
  }
}
