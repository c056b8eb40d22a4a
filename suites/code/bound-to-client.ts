import { GRANT, PreconditionError, defineScenario } from '../../harness/scenario.ts';
import { expectOAuthError } from '../checks/index.ts';

export default defineScenario({
  id: 'code.bound-to-client',
  title: "Another client cannot redeem a client's authorization code",
  requirements: {
    rfc6749_4_1_3: {
      spec: 'RFC 6749',
      section: '4.1.3',
      level: 'MUST',
      party: 'server',
      note: 'the code was issued to the authenticated client',
    },
    rfc6749_5_2: {
      spec: 'RFC 6749',
      section: '5.2',
      level: 'MUST',
      party: 'server',
      note: 'invalid_grant: issued to another client',
    },
  },
  severity: 'critical',
  requires: {
    roles: ['confidential', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:token'],
  },
  catches: ['code-not-bound-to-client'],
  async run(ctx) {
    const [owner, other] = [ctx.client('confidential'), ctx.client('confidential2')];
    if (owner.clientId === other.clientId)
      throw new PreconditionError(
        `clients.confidential and clients.confidential2 are the same client (${owner.clientId}); two different ` +
          `clients are needed`,
      );
    const { code, request, pkce } = await ctx.flows.code('confidential');
    // Everything else is right (redirect_uri, code_verifier); only the client differs.
    const res = await ctx.http.token(
      other,
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: request.redirect_uri,
        code_verifier: pkce?.verifier,
      },
      { label: "token request by confidential2 with confidential's code" },
    );
    expectOAuthError(res, 'invalid_grant', {
      when: `A token request by client ${other.clientId} with a code issued to client ${owner.clientId}`,
      per: ctx.req.rfc6749_4_1_3,
    });
  },
});
