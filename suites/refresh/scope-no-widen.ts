import { defineScenario } from '../../harness/scenario/scenario.ts';
import { parseScope } from '../../generators/scope.ts';
import { expectScopesWithheld, grantedScopes, offlineScope, refresh, tokensWithRefresh } from '../checks/index.ts';

export default defineScenario({
  id: 'refresh.scope-no-widen',
  title: 'A refresh request for a scope the original grant did not include gets invalid_scope',
  requirements: {
    rfc6749_6: {
      spec: 'RFC 6749',
      section: '6',
      level: 'MUST',
      party: 'server',
      note: 'no scope not originally granted',
    },
    rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server', note: 'invalid_scope' },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'grant:refresh_token', 'endpoint:token'],
  },
  catches: ['refresh-scope-widen'],
  async run(ctx) {
    // A scope the client may have, left out of the first grant: a server that only checks the
    // client's allowed scopes at refresh lets it in.
    const client = ctx.client('confidential');
    const configured = parseScope(client.scope);
    // The scope left out is one the server declared: the client's stated scope, or (the client's scope being the
    // harness's guess) one of scopes_supported, the client's asked-for ones first.
    const supported = ctx.target.discovery?.scopes_supported;
    const declared = client.scopeGuessed
      ? Array.isArray(supported)
        ? [
            ...configured.filter((s) => supported.includes(s)),
            ...supported.filter((s): s is string => typeof s === 'string' && !configured.includes(s)),
          ]
        : []
      : configured;
    const held = declared.filter((s) => s !== 'openid' && s !== 'offline_access').at(client.scopeGuessed ? 0 : -1);
    if (!held)
      return ctx.skip(
        client.scopeGuessed
          ? `the confidential client's scope ${JSON.stringify(client.scope)} is the harness's, stated neither by ` +
              'the config nor by the registration response, and scopes_supported declares no other scope to leave ' +
              'out of the first grant and ask for at refresh'
          : "the confidential client's scope has nothing but openid and offline_access, so no scope can be left out " +
              'of the first grant and asked for at refresh',
      );
    // With no other scope to ask the first grant for, the code flow would ask with the client's own scope, held
    // included (a one-scope client on a server that lists no offline_access): nothing left out to widen to.
    if (
      offlineScope(
        ctx.target,
        configured.filter((s) => s !== held),
      ).length === 0
    )
      return ctx.skip(
        `the confidential client's scope names no scope but ${held}, so the first grant would be asked for with ` +
          `${held} itself and a refresh cannot ask for it on top of the original grant`,
      );
    const { tokens, scope } = await tokensWithRefresh(
      ctx,
      'confidential',
      configured.filter((s) => s !== held),
    );
    // No premise, no verdict: a server may grant more than asked for (RFC 6749 §3.3), and then nothing is left out.
    if (grantedScopes(tokens, scope, ctx.jwt).some((g) => g.scopes.includes(held))) {
      ctx.skip(`the first grant already included ${held}, which was not asked for, so a refresh cannot widen to it`);
    }
    const wider = [...scope, held];
    const res = await refresh(
      ctx,
      'confidential',
      tokens.refresh_token,
      { scope: wider.join(' ') },
      `refresh_token as confidential, asking for ${held} on top of the original grant`,
    );
    expectScopesWithheld(res, [held], wider, ctx.jwt, {
      when: `A refresh request asking for ${held}, which the original grant did not include,`,
      per: ctx.req.rfc6749_6,
    });
  },
});
