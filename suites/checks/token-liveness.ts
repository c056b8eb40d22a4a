/**
 * Whether tokens still work, asked where the target lets a client ask: introspection (RFC 7662
 * §2.2, active), else userinfo (OIDC Core §5.3; RFC 6750 §3.1 answers a dead token with 401),
 * else a refresh (RFC 6749 §6; a revoked grant gets an error). Scenarios about revocation probe
 * once before (the tokens must work, or the probe proves nothing) and once after.
 */
import {
  type ClientRole,
  type CodeFlowOptions,
  GRANT,
  type HttpResponse,
  PreconditionError,
  type ScenarioContext,
  type TokenSet,
} from '../../harness/scenario/scenario.ts';
import { withOpenid } from './scope.ts';

export interface TokenProbe {
  /** Where it asks, for sentences: "at introspection". */
  readonly where: string;
  /** What the code flow must ask for so the probe has something to present. */
  readonly flow: CodeFlowOptions;
  /**
   * Whether the tokens still work, with the answer that says so ("active:true"). An answer that
   * says neither is a PreconditionError. A refresh probe keeps the newest refresh token.
   */
  works(tokens: TokenSet): Promise<{ works: boolean; answer: string }>;
}

const statusLine = (res: HttpResponse) =>
  `HTTP ${res.status}${typeof res.body.error === 'string' ? ` error=${res.body.error}` : ''}`;

/**
 * The first probe the target and the role's client allow: introspection, userinfo, else a refresh with the refresh
 * token the flow issued (none issued: the probe skips the scenario, saying so).
 */
export function tokenProbe(ctx: ScenarioContext, role: ClientRole): TokenProbe {
  const client = ctx.client(role);
  const { introspection, userinfo } = ctx.target.endpoints;
  if (introspection && client.clientSecret !== undefined) {
    return {
      where: 'at introspection',
      flow: { scope: client.scope || undefined },
      async works(tokens) {
        const res = await ctx.http.token(
          client,
          { token: tokens.access_token, token_type_hint: 'access_token' },
          {
            url: introspection,
            label: 'introspection of the access token',
          },
        );
        if (res.status === 200 && typeof res.body.active === 'boolean') {
          return { works: res.body.active, answer: `active:${res.body.active}` };
        }
        throw new PreconditionError(`introspection answered ${statusLine(res)}, not {active: true|false}`);
      },
    };
  }
  if (userinfo) {
    return {
      where: 'at userinfo',
      flow: { scope: withOpenid(client.scope) },
      async works(tokens) {
        const res = await ctx.http.get(userinfo, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
          label: 'userinfo with the access token',
        });
        if (res.status === 200) return { works: true, answer: 'HTTP 200 with claims' };
        if (res.status === 401)
          return { works: false, answer: `HTTP 401 (${res.header('www-authenticate') ?? 'no WWW-Authenticate'})` };
        throw new PreconditionError(`userinfo answered ${statusLine(res)}, neither 200 nor 401`);
      },
    };
  }
  // A refresh token the flow itself issues is evidence enough, advertised or not (docs/security.md): whether the run
  // has seen one yet must not decide this (it depends on which scenario ran first).
  {
    let latest: string | undefined;
    return {
      where: 'at the token endpoint (refresh)',
      // OIDC Core §11: offline_access may be dropped unless consent is prompted for.
      flow: { scope: client.scope || undefined, params: { prompt: 'consent' } },
      async works(tokens) {
        latest ??= tokens.refresh_token;
        if (!latest)
          ctx.skip(
            'the target has neither introspection nor userinfo, and the code flow issued no refresh token ' +
              'to probe with',
          );
        const res = await ctx.http.token(
          client,
          { grant_type: GRANT.refresh, refresh_token: latest },
          { label: 'refresh with the refresh token' },
        );
        if (res.status === 200 && typeof res.body.access_token === 'string') {
          if (typeof res.body.refresh_token === 'string') latest = res.body.refresh_token;
          return { works: true, answer: 'HTTP 200 with an access_token' };
        }
        if (res.status >= 400 && res.status < 500 && typeof res.body.error === 'string')
          return { works: false, answer: statusLine(res) };
        throw new PreconditionError(`the refresh answered ${statusLine(res)}, neither tokens nor an OAuth error`);
      },
    };
  }
}
