/**
 * Shared steps of the RFC 9700 / PAR / DPoP / private_key_jwt scenarios: which client runs the
 * code flow (the keyed one first: it is the one a FAPI 2.0 server accepts), the target's DPoP
 * algorithms, and redeeming a code with or without a DPoP proof.
 */
import {
  type Client,
  type DpopKey,
  type HttpResponse,
  type ScenarioContext,
  type TokenSet,
  GRANT,
  PreconditionError,
  createDpopKey,
} from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_ROLES, findClient } from './clients.ts';
import { isRecord } from '../../protocol/guards.ts';

/** The code-flow client these scenarios use: keyed (private_key_jwt) when configured, else the usual ones. */
export function codeFlowClient(ctx: ScenarioContext, test: (c: Client) => boolean = () => true): Client | undefined {
  return findClient(ctx, ['keyed', 'confidential', ...CODE_FLOW_ROLES], (c) => !!c.redirectUri && test(c));
}

/** The DPoP algorithms the target advertises (RFC 9449 §5.1), or undefined when it advertises none. */
export function dpopAlgs(ctx: ScenarioContext): string[] | undefined {
  const algs = ctx.target.discovery?.dpop_signing_alg_values_supported;
  return Array.isArray(algs) && algs.length ? algs.filter((a): a is string => typeof a === 'string') : undefined;
}

/** A fresh DPoP key of an advertised algorithm, or a skip naming the missing field. */
export function dpopKey(ctx: ScenarioContext): DpopKey {
  const algs =
    dpopAlgs(ctx) ?? ctx.skip('the target does not advertise DPoP (dpop_signing_alg_values_supported, RFC 9449 §5.1)');
  return createDpopKey(algs);
}

/**
 * Whether token requests need a DPoP proof to be answered: under the fapi2 profile (FAPI 2.0 SP
 * §5.3.2.1, sender-constrained tokens only), when the target advertises DPoP.
 */
export function dpopExpected(ctx: ScenarioContext): boolean {
  return ctx.profile === 'fapi2' && dpopAlgs(ctx) !== undefined;
}

/**
 * The token request that redeems `code`, with a DPoP proof by `key` when given, and the client
 * assertion `assertion` (private_key_jwt) instead of the client's own authentication when given.
 */
export function redeem(
  ctx: ScenarioContext,
  client: Client,
  code: { code: string; request: Record<string, string>; pkce?: { verifier: string } },
  key?: DpopKey,
  label = 'token request (authorization_code)',
  assertion?: string,
): Promise<HttpResponse> {
  const url = ctx.target.endpoints.token ?? ctx.skip('the discovery document has no token_endpoint');
  return ctx.http.token(
    client,
    {
      grant_type: GRANT.code,
      code: code.code,
      redirect_uri: code.request.redirect_uri,
      code_verifier: code.pkce?.verifier,
    },
    { label, ...(assertion ? { assertion } : {}), ...(key ? { headers: { dpop: key.proof('POST', url) } } : {}) },
  );
}

/** A successful token response as set-up, or a PreconditionError naming the answer. */
export function tokensOf(res: HttpResponse, what: string): TokenSet {
  if (res.status !== 200 || typeof res.body.access_token !== 'string') {
    const error = typeof res.body.error === 'string' ? ` error=${res.body.error}` : '';
    throw new PreconditionError(`${what}: the token endpoint answered ${res.status}${error} instead of tokens`);
  }
  return res.body as TokenSet;
}

/** The code flow's tokens as `client`, with a DPoP proof by `key` (or by a fresh key where the profile expects one). */
export async function codeFlowTokens(
  ctx: ScenarioContext,
  client: Client,
  key?: DpopKey,
  scope?: string,
): Promise<{ tokens: TokenSet; key?: DpopKey }> {
  const proofKey = key ?? (dpopExpected(ctx) ? dpopKey(ctx) : undefined);
  const code = await ctx.flows.code(client.role, scope ? { scope } : {});
  const tokens = tokensOf(await redeem(ctx, client, code, proofKey), `redeeming the code as ${client.role}`);
  return { tokens, ...(proofKey ? { key: proofKey } : {}) };
}

/** A JWT's payload read without trust, or undefined when the value is not a JWS (an opaque token). */
export function jwtPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
    const payload: unknown = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    if (!header || typeof header !== 'object' || !('alg' in header)) return undefined;
    return isRecord(payload) ? payload : undefined;
  } catch {
    return undefined;
  }
}
