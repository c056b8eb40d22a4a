import { CheckFailure, type Client, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import { implicitOffers, tokenResponseTypes, withOpenid } from '../checks/index.ts';

/** The clients the config names for the code flow: not configured for the implicit grant. */
const CODE_CLIENTS = ['public', 'confidential', 'confidential2', 'keyed'] as const;

export default defineScenario({
  id: 'implicit.deprecated',
  title:
    'The implicit grant (access tokens in the authorization response) is not offered, or only to the clients ' +
    'configured for it',
  requirements: {
    // "clients SHOULD NOT use the implicit grant": a client rule, never a server failure (--profile rfc skips this).
    rfc9700_2_1_2: {
      spec: 'RFC 9700',
      section: '2.1.2',
      level: 'SHOULD',
      party: 'client',
      note: 'clients should not use the implicit grant',
    },
    specDeprecated: {
      spec: 'SPEC',
      section: 'Versioning',
      level: 'SHOULD',
      party: 'server',
      note: 'VER-2: the implicit grant is deprecated (SVC-4: off unless a client is configured for it)',
    },
    fapi2CodeOnly: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'response_type code only',
    },
  },
  severity: 'low',
  appliesTo: 'oauth2',
  requires: { optionalRoles: CODE_CLIENTS },
  catches: ['implicit-for-every-client'],
  async run(ctx) {
    if (!ctx.target.discovery) {
      ctx.skip(
        `the discovery document could not be read (${ctx.target.discoveryProblem}), so it cannot tell whether the ` +
          `implicit grant is offered`,
      );
    }
    const offers = implicitOffers(ctx.target);
    if (!offers.length) return;
    if (ctx.applies(ctx.req.fapi2CodeOnly)) {
      throw new CheckFailure(
        `The target offers the implicit grant (${offers.join('; ')}); FAPI 2.0 SP §5.3.2.2 requires ` +
          `response_type code only.`,
        { requirement: ctx.req.fapi2CodeOnly },
      );
    }
    // The SPEC deprecates implicit but keeps it for the clients configured for it (SVC-4: "off unless a client is
    // configured for it"; the legacy role of the config). Discovery offering it says only that some client may use it:
    // the evidence is a client configured for the code flow that is given tokens by the implicit grant.
    const clients = CODE_CLIENTS.map((r) => ctx.clients[r]).filter((c): c is Client => !!c?.redirectUri);
    if (!clients.length || !ctx.user)
      return ctx.skip(
        `discovery offers the implicit grant (${offers.join('; ')}), which the SPEC keeps for clients configured for ` +
          `it; whether clients that are not get it cannot be told without ${
            clients.length ? 'a user who can log in' : 'a code-flow client (clients.public, confidential, …)'
          }`,
      );
    const responseType = ['token', 'id_token token'].find((t) => tokenResponseTypes(ctx.target).includes(t)) ?? 'token';
    const granted: string[] = [];
    for (const client of clients) {
      const scope = responseType === 'token' ? client.scope || undefined : withOpenid(client.scope);
      const outcome = await ctx.authorize(
        client.role,
        { response_type: responseType, scope, nonce: ctx.random() },
        { session: 'shared' },
      );
      const got = outcome.kind === 'redirect' && !!outcome.params.access_token;
      ctx.evidence.note(
        `response_type=${responseType} as the ${client.role} client (configured for the code flow): ` +
          `${got ? 'an access token in the authorization response' : describeOutcome(outcome)}`,
      );
      if (got) granted.push(client.role);
    }
    if (granted.length) {
      throw new CheckFailure(
        `The implicit grant (response_type=${responseType}) gave an access token to the ${granted.join(' and ')} ` +
          `client${granted.length > 1 ? 's' : ''}, configured for the code flow, not for implicit; the SPEC (VER-2) ` +
          `deprecates the implicit grant, off unless a client is configured for it (SVC-4), and RFC 9700 §2.1.2 asks ` +
          `clients not to use it (the code flow with PKCE instead).`,
        { requirement: ctx.req.specDeprecated },
      );
    }
    ctx.evidence.note(
      `Discovery offers the implicit grant (${offers.join('; ')}), but not to the code-flow clients: it is kept for ` +
        'the clients configured for it.',
    );
  },
});
