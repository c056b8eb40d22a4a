import { CheckFailure, defineScenario } from '../../harness/scenario.ts';
import { implicitOffers } from '../checks/index.ts';

export default defineScenario({
  id: 'implicit.deprecated',
  title: 'The implicit grant (access tokens in the authorization response) is not offered',
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
      note: 'VER-2: the implicit grant is deprecated',
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
  async run(ctx) {
    if (!ctx.target.discovery) {
      ctx.skip(
        `the discovery document could not be read (${ctx.target.discoveryProblem}), so it cannot tell whether the ` +
          `implicit grant is offered`,
      );
    }
    const offers = implicitOffers(ctx.target);
    if (offers.length && ctx.applies(ctx.req.fapi2CodeOnly)) {
      throw new CheckFailure(
        `The target offers the implicit grant (${offers.join('; ')}); FAPI 2.0 SP §5.3.2.2 requires ` +
          `response_type code only.`,
        { requirement: ctx.req.fapi2CodeOnly },
      );
    }
    if (offers.length) {
      throw new CheckFailure(
        `The target offers the implicit grant (${offers.join('; ')}); the SPEC (VER-2) deprecates it, and RFC 9700 ` +
          `§2.1.2 asks clients not to use it (the code flow with PKCE instead).`,
        { requirement: ctx.req.specDeprecated },
      );
    }
  },
});
