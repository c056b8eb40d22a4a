import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { clientPair, expectRefusalFor } from '../checks/index.ts';

export default defineScenario({
  id: 'code.bound-to-client',
  title: "Another client cannot redeem a client's authorization code",
  requirements: {
    rfc6749_4_1_3: {
      spec: 'RFC 6749',
      section: '4.1.3',
      level: 'MUST',
      party: 'server',
      note: 'the code was issued to the authenticated client, or to the public client_id of the request',
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
  // Any two different code-flow clients (clientPair): confidential and confidential2, else one of them and public.
  requires: {
    optionalRoles: ['confidential', 'confidential2', 'public'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:token'],
  },
  catches: ['code-not-bound-to-client'],
  async run(ctx) {
    const pair = clientPair(ctx);
    const [owner, other] = [ctx.client(pair.owner), ctx.client(pair.other)];
    const { code, request, pkce } = await ctx.flows.code(pair.owner);
    // Everything else is right (redirect_uri, code_verifier); only the client differs. A public client is known by the
    // client_id it sends, a confidential one by its authentication (RFC 6749 §4.1.3).
    const res = await ctx.http.token(
      other,
      {
        grant_type: GRANT.code,
        code,
        redirect_uri: request.redirect_uri,
        code_verifier: pkce?.verifier,
      },
      { label: `token request by ${pair.other} with ${pair.owner}'s code` },
    );
    // RFC 6749 §5.2 names the refusal: invalid_grant, "issued to another client". Another error (say
    // invalid_client) may be about the other client itself: it counts only if that client redeems a code of its own.
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
          const own = await ctx.flows.code(pair.other);
          return ctx.http.token(
            other,
            {
              grant_type: GRANT.code,
              code: own.code,
              redirect_uri: own.request.redirect_uri,
              code_verifier: own.pkce?.verifier,
            },
            { label: `token request by ${pair.other} with its own code (control)` },
          );
        },
      },
    );
  },
});
