import { CheckFailure, GRANT, defineScenario, requiresPar } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, codeFlowClient, expectTokenResponse } from '../checks/index.ts';
import {
  REGISTERED_REDIRECT_URI,
  codeClientMetadata,
  registerOrFail,
  registeredClient,
  withRegistration,
} from '../checks/registration.ts';

/**
 * A client registered at the registration endpoint is a client of the server: with the client_id,
 * secret and redirect URI of its registration it completes the authorization code flow (with PKCE).
 * A configured code-flow role carries the login walk (its login driver and defaults); the request's
 * client_id and redirect_uri are the registered client's.
 */
export default defineScenario({
  id: 'registration.code-flow',
  appliesTo: 'oauth2',
  title: 'A registered client completes the authorization code flow',
  requirements: {
    rfc7591_3_2_1: {
      spec: 'RFC 7591',
      section: '3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'the client_id issued identifies the client at this server, with its registered metadata',
    },
    oidcreg_3_2: {
      spec: 'OIDC Registration',
      section: '3.2',
      level: 'MUST',
      party: 'server',
      note: 'the response carries the Client Identifier of the registered client',
    },
  },
  severity: 'medium',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['endpoint:registration', 'endpoint:authorization', 'endpoint:token', 'grant:authorization_code'],
  },
  catches: ['registration-client-unusable'],
  async run(ctx) {
    const carrier = codeFlowClient(ctx) ?? ctx.skip('needs a configured code-flow client role to carry the login walk');
    if (requiresPar(ctx.target)) ctx.skip('the target requires pushed authorization requests; not covered here');
    const metadata = codeClientMetadata(ctx);
    const registration = await registerOrFail(ctx, metadata, 'registration of a confidential client');
    const client = registeredClient(registration);
    await withRegistration(ctx, registration, async () => {
      const pkce = ctx.pkce.create();
      const outcome = await ctx.authorize(carrier.role, {
        client_id: registration.clientId,
        redirect_uri: REGISTERED_REDIRECT_URI,
        // The scope it registered with (the response need not repeat it: registration.metadata-returned's rule).
        scope: typeof metadata.scope === 'string' ? metadata.scope : undefined,
        code_challenge: pkce.challenge,
        code_challenge_method: pkce.method,
      });
      const answer = authorizationAnswer(outcome, 'The authorization request of the registered client');
      if (answer.kind === 'refused') {
        throw new CheckFailure(
          `The authorization request of client ${registration.clientId}, just registered with the redirect URI ` +
            `${REGISTERED_REDIRECT_URI} and the authorization_code grant, ${answer.how}; ${ctx.req.rfc7591_3_2_1} ` +
            'makes the client_id it issued a client of this server.',
          { requirement: ctx.req.rfc7591_3_2_1, kind: 'refused-wrongly' },
        );
      }
      const res = await ctx.http.token(
        client,
        {
          grant_type: GRANT.code,
          code: answer.code,
          redirect_uri: REGISTERED_REDIRECT_URI,
          code_verifier: pkce.verifier,
        },
        { label: 'token request of the registered client' },
      );
      expectTokenResponse(res, { when: 'The registered client redeeming its code', per: ctx.req.rfc7591_3_2_1 });
      ctx.evidence.note(`Client ${registration.clientId} got a code and redeemed it for tokens.`);
    });
  },
});
