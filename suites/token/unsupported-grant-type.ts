import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, findClient } from '../checks/index.ts';

export default defineScenario({
  id: 'token.unsupported-grant-type',
  title: 'A token request with a grant_type the server does not know gets unsupported_grant_type',
  requirements: {
    rfc6749_5_2: { spec: 'RFC 6749', section: '5.2', level: 'MUST', party: 'server', note: 'unsupported_grant_type' },
  },
  severity: 'low',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['machine', 'confidential', 'confidential2', 'exchange', 'public'],
    capabilities: ['endpoint:token'],
  },
  async run(ctx) {
    // An authenticated client, so the only thing wrong with the request is its grant type.
    const client = findClient(
      ctx,
      ['machine', 'confidential', 'confidential2', 'exchange'],
      (c) => c.clientSecret !== undefined,
    );
    if (!client)
      return ctx.skip(
        'needs a client with a secret (clients.machine, confidential, confidential2 or exchange), so that only the ' +
          'grant type is wrong',
      );
    const grantType = 'urn:example:idp-conformance:no-such-grant';
    const res = await ctx.http.token(
      client,
      { grant_type: grantType },
      { label: 'token request with an unknown grant_type' },
    );
    expectOAuthError(res, 'unsupported_grant_type', {
      when: `A token request with the unknown grant_type ${grantType}`,
      per: ctx.req.rfc6749_5_2,
    });
  },
});
