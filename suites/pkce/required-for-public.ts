import { CheckFailure, type Client, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, expectRefusalIsFor } from '../checks/index.ts';

/**
 * The SPEC requires code_challenge of public and third-party clients (first-party confidential
 * ones may omit it). Judged for every configured client with a redirect URI that is public (no client
 * authentication) or, in the spec profile, third-party (firstParty: false). Under the
 * rfc profile only public clients count: RFC 9700 §2.1.1 requires PKCE of them.
 */
export default defineScenario({
  id: 'pkce.required-for-public',
  title: 'An authorization request of a public or third-party client without code_challenge is refused',
  requirements: {
    specAuthorizationEndpoint: {
      spec: 'SPEC',
      section: 'Authorization endpoint',
      level: 'MUST',
      party: 'server',
      note: 'code_challenge required for public and third-party clients',
    },
    // "Public clients MUST use PKCE" binds the client; no RFC makes the server refuse a public client without it.
    rfc9700_2_1_1: {
      spec: 'RFC 9700',
      section: '2.1.1',
      level: 'MUST',
      party: 'client',
      note: 'public clients use PKCE',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['public', 'confidential', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization'],
  },
  catches: ['pkce-optional-for-public'],
  async run(ctx) {
    // Public: it does not authenticate (RFC 6749 §2.1), as the config or the registration response states. A client
    // without a secret may authenticate otherwise (private_key_jwt): confidential. Third-party only where the config
    // says so (firstParty: false): a party is never guessed.
    const isPublic = (c: Client) => c.authMethod === 'none';
    const judged = Object.values(ctx.clients).filter(
      (c): c is Client => !!c?.redirectUri && (isPublic(c) || (c.firstParty === false && ctx.profile === 'spec')),
    );
    if (judged.length === 0) {
      ctx.skip(
        ctx.profile === 'spec'
          ? 'no public or third-party (firstParty: false) client with a redirectUri is configured'
          : 'no public client with a redirectUri is configured (the rfc profile requires PKCE of public clients only)',
      );
    }
    for (const client of judged) {
      const kind = isPublic(client) ? 'public' : 'third-party';
      await ctx.softly(async () => {
        const outcome = await ctx.authorize(client.role, {}, { session: 'shared' }); // no code_challenge
        const answer = authorizationAnswer(
          outcome,
          `The authorization request of the ${kind} client ${client.clientId} without code_challenge`,
        );
        if (answer.kind === 'code') {
          const rules = [
            ...(ctx.profile === 'spec' ? ['the SPEC requires code_challenge of public and third-party clients'] : []),
            ...(kind === 'public'
              ? ['RFC 9700 §2.1.1 requires public clients to use PKCE, which only the server can enforce']
              : []),
          ];
          throw new CheckFailure(
            `An authorization request of the ${kind} client ${client.clientId} without code_challenge got a ` +
              `code; ${rules.join(', and ')}.`,
          );
        }
        await expectRefusalIsFor(
          ctx,
          client.role,
          answer.how,
          `the missing code_challenge of the ${kind} client ${client.clientId}`,
        );
      });
    }
  },
});
