import { GRANT, PreconditionError, defineScenario } from '../../harness/scenario.ts';
import { expectRefusalFor } from '../checks/index.ts';

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
  appliesTo: 'oauth2',
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
    // RFC 6749 §5.2 names the refusal: invalid_grant, "issued to another client". Another error (say
    // invalid_client) may be about confidential2 itself: it counts only if confidential2 redeems a code of its own.
    await expectRefusalFor(
      res,
      'invalid_grant',
      {
        when: `A token request by client ${other.clientId} with a code issued to client ${owner.clientId}`,
        per: ctx.req.rfc6749_4_1_3,
      },
      {
        cause: `the code being issued to client ${owner.clientId}`,
        control: `a token request by client ${other.clientId} with a code of its own`,
        run: async () => {
          const own = await ctx.flows.code('confidential2');
          return ctx.http.token(
            other,
            {
              grant_type: GRANT.code,
              code: own.code,
              redirect_uri: own.request.redirect_uri,
              code_verifier: own.pkce?.verifier,
            },
            { label: 'token request by confidential2 with its own code (control)' },
          );
        },
      },
    );
  },
});
