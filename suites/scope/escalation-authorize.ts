import { type Client, GRANT, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { parseScope } from '../../generators/scope.ts';
import {
  CODE_FLOW_ROLES,
  authorizationAnswer,
  escalatingScopes,
  expectRefusalIsFor,
  expectScopesWithheld,
  guessedScopes,
  partyClient,
} from '../checks/index.ts';

export default defineScenario({
  id: 'scope.escalation-authorize',
  title:
    "An authorization request for scopes beyond the client's is refused (invalid_scope, or the extra scopes are " +
    'not granted)',
  requirements: { specErrors: { spec: 'SPEC', section: 'Errors', level: 'MUST', party: 'server', note: 'rule 4' } },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['public', 'confidential', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['scope-unchecked'],
  async run(ctx) {
    // A third-party client first: the SPEC gives it minimal scope, so it is the one an attacker uses. Only a client
    // whose scope is stated (the config's scope, or the scope the registration response states) has a "beyond".
    const candidates = [partyClient(ctx, false), ...CODE_FLOW_ROLES.map((r) => ctx.clients[r])].filter(
      (c): c is Client => !!c?.redirectUri,
    );
    if (!candidates.length)
      return ctx.skip('needs a code-flow client (clients.public, confidential or confidential2 with a redirectUri)');
    const client =
      candidates.find((c) => !c.scopeGuessed) ??
      ctx.skip(
        `no code-flow client's scope is stated (${guessedScopes(candidates)}): the scope the harness asks for is ` +
          'not the scope the server allows the client, so no scope is known to be beyond it (set the scope in the ' +
          "client's config, or an IdP that states it in the registration response)",
      );
    const configured = parseScope(client.scope);
    const extra = escalatingScopes(ctx.target, configured, ['openid']);
    if (extra.length === 0) {
      return ctx.skip(
        `the target advertises no scope (scopes_supported) beyond the ${client.role} client's "${client.scope}" to ` +
          `escalate to`,
      );
    }
    const requested = [...configured, ...extra];
    const when =
      `An authorization request as the ${client.role} client for ${extra.join(' ')} beyond its scope ` +
      `"${client.scope}"`;
    const pkce = ctx.pkce.create();
    const auth = await ctx.authorize(
      client.role,
      {
        scope: requested.join(' '),
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      },
      { session: 'shared' },
    );
    const answer = authorizationAnswer(auth, `the authorization request for ${extra.join(' ')}`);
    if (answer.kind === 'refused') {
      // Refused. RFC 6749 §4.1.2.1 names the code invalid_scope; the SPEC asks only for the refusal.
      if (auth.kind === 'redirect' && auth.params.error === 'invalid_scope') return;
      // Another error, or a page, may have another cause (a missing parameter the IdP wants, a login problem):
      // the refusal counts only if the same request within the client's scope gets a code.
      await expectRefusalIsFor(
        ctx,
        client.role,
        `for ${extra.join(' ')} ${answer.how}`,
        `the scopes beyond the client's (${extra.join(' ')})`,
      );
      return;
    }
    const code = answer.code;
    const res = await ctx.http.token(
      client,
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: auth.request.redirect_uri,
        code_verifier: pkce.verifier,
      },
      { label: 'token request for the escalated code' },
    );
    if (res.status !== 200 && res.body.error !== 'invalid_scope') {
      throw new PreconditionError(
        `redeeming the code got ` +
          `HTTP ${res.status}${typeof res.body.error === 'string' ? ` error=${res.body.error}` : ''} instead of ` +
          `tokens whose scope could be read`,
      );
    }
    expectScopesWithheld(res, extra, requested, ctx.jwt, { when, per: ctx.req.specErrors });
  },
});
