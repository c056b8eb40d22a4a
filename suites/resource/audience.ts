import { CheckFailure, GRANT, defineScenario } from '../../harness/scenario.ts';
import { expectOAuthError, jwtPayload, tokensOf } from '../checks/index.ts';

export default defineScenario({
  id: 'resource.audience',
  title:
    "A resource indicator restricts the access token's audience to that resource; an unknown resource gets " +
    'invalid_target',
  requirements: {
    rfc8707_2: {
      spec: 'RFC 8707',
      section: '2',
      level: 'SHOULD',
      party: 'server',
      note: 'audience-restrict the token to the indicated resource; invalid_target for an unacceptable one',
    },
    rfc9700_2_3: {
      spec: 'RFC 9700',
      section: '2.3',
      level: 'SHOULD',
      party: 'server',
      note: 'access tokens audience-restricted to a resource server',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { roles: ['machine'], capabilities: ['grant:client_credentials', 'endpoint:token'] },
  catches: ['resource-ignored'],
  async run(ctx) {
    const client = ctx.client('machine');
    // RFC 8707 has no discovery field: the config says which resource the IdP knows.
    const resource =
      client.resource ??
      ctx.skip(
        'needs clients.machine.resource: a resource indicator the IdP knows for this client (RFC 8707 defines no ' +
          'discovery field that advertises support)',
      );
    const scope = client.scope || undefined;
    const tokens = tokensOf(
      await ctx.http.token(
        client,
        { grant_type: GRANT.clientCredentials, scope, resource },
        { label: `client_credentials for resource ${resource}` },
      ),
      'client_credentials with a resource',
    );
    const payload = jwtPayload(tokens.access_token);
    if (!payload)
      ctx.evidence.note(
        'The access token is opaque: its audience cannot be read from outside; only the unknown resource is checked.',
      );
    else {
      const aud = [payload.aud].flat();
      ctx.evidence.note(`aud of the token for ${resource}: ${JSON.stringify(payload.aud)}`);
      await ctx.softly(() => {
        if (!aud.includes(resource))
          throw new CheckFailure(
            `A client_credentials token requested for resource ${resource} has ` +
              `aud ${JSON.stringify(payload.aud)}; ${ctx.req.rfc8707_2} asks the server to audience-restrict it to ` +
              `the indicated resource.`,
            { requirement: ctx.req.rfc8707_2 },
          );
        if (aud.length > 1)
          throw new CheckFailure(
            `A token requested for resource ${resource} has aud ${JSON.stringify(payload.aud)}: other audiences ` +
              `besides the indicated resource; ${ctx.req.rfc8707_2} asks for the indicated resource.`,
            { requirement: ctx.req.rfc8707_2 },
          );
      });
    }
    const unknown = `https://unknown-${ctx.random(6).toLowerCase()}.resource.invalid/api`;
    const res = await ctx.http.token(
      client,
      { grant_type: GRANT.clientCredentials, scope, resource: unknown },
      { label: 'client_credentials for an unknown resource' },
    );
    expectOAuthError(res, 'invalid_target', {
      when: `A client_credentials request for the unknown resource ${unknown}`,
      per: ctx.req.rfc8707_2,
    });
  },
});
