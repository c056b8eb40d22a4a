import { CheckFailure, GRANT, createDpopKey, defineScenario } from '../../harness/scenario/scenario.ts';
import { parseScope } from '../../generators/scope.ts';
import { describeResponse, dpopAlgs, dpopKey, dpopTokens, offlineScope, tokensOf } from '../checks/index.ts';

export default defineScenario({
  id: 'dpop.refresh-bound',
  title: "A public client's refresh token issued with a DPoP proof works only with a proof by the same key",
  requirements: {
    rfc9449_5: {
      spec: 'RFC 9449',
      section: '5',
      level: 'MUST',
      party: 'server',
      note: "a public client's refresh token is bound to the DPoP key; the binding is checked on use",
    },
    rfc9700_2_2_2: {
      spec: 'RFC 9700',
      section: '2.2.2',
      level: 'MUST',
      party: 'server',
      roles: ['public'],
      note: "public clients' refresh tokens sender-constrained or rotated",
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['public'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['dpop-refresh-not-bound'],
  async run(ctx) {
    const client = ctx.client('public');
    const key = dpopKey(ctx);
    // offline_access only where the target advertises it (an IdP that does not know it may refuse the request).
    const scope = offlineScope(ctx.target, parseScope(client.scope)).join(' ');
    const tokens = await dpopTokens(ctx, client, key, scope);
    const refresh =
      tokens.refresh_token ?? ctx.skip(`the public client got no refresh token (scope "${scope}"); nothing to bind`);
    const url = ctx.target.endpoints.token!;
    const attempts: { name: string; headers: Record<string, string> }[] = [
      { name: 'a proof by another key', headers: { dpop: createDpopKey(dpopAlgs(ctx)).proof('POST', url) } },
      { name: 'no DPoP proof', headers: {} },
    ];
    for (const attempt of attempts) {
      const res = await ctx.http.token(
        client,
        { grant_type: GRANT.refresh, refresh_token: refresh },
        { label: `refresh with ${attempt.name}`, headers: attempt.headers },
      );
      if (res.status === 200 && typeof res.body.access_token === 'string') {
        throw new CheckFailure(
          `The public client's DPoP-bound refresh token was accepted with ${attempt.name} ` +
            `(${describeResponse(res)}); ${ctx.req.rfc9449_5} requires the authorization server to check the ` +
            `binding and refuse it.`,
          { requirement: ctx.req.rfc9449_5 },
        );
      }
    }
    // The binding is usable: the same key refreshes.
    const res = await ctx.http.token(
      client,
      { grant_type: GRANT.refresh, refresh_token: refresh },
      { label: 'refresh with a proof by the same key', headers: { dpop: key.proof('POST', url) } },
    );
    tokensOf(res, 'refreshing with a proof by the key the refresh token is bound to');
  },
});
