import { CheckFailure, defineScenario } from '../../harness/scenario.ts';
import { implicitOffers } from '../checks/index.ts';

export default defineScenario({
  id: 'implicit.deprecated',
  title: 'The implicit grant (access tokens in the authorization response) is not offered',
  requirements: [
    { spec: 'RFC 9700', section: '2.1.2', level: 'SHOULD', note: 'the implicit grant should not be used' },
    { spec: 'FAPI 2.0 SP', section: '5.3.2.2', level: 'MUST', note: 'response_type code only' },
  ],
  severity: 'low',
  async run(ctx) {
    if (!ctx.target.discovery) {
      ctx.skip(`the discovery document could not be read (${ctx.target.discoveryProblem}), so it cannot tell whether the implicit grant is offered`);
    }
    const offers = implicitOffers(ctx.target);
    if (offers.length && ctx.profile === 'fapi2') {
      throw new CheckFailure(`The target offers the implicit grant (${offers.join('; ')}); FAPI 2.0 SP §5.3.2.2 requires response_type code only.`, { requirement: 'FAPI 2.0 SP §5.3.2.2' });
    }
    if (offers.length) {
      throw new CheckFailure(`The target offers the implicit grant (${offers.join('; ')}); RFC 9700 §2.1.2 says access tokens should not be issued in the authorization response: clients should use the code flow with PKCE.`, { requirement: 'RFC 9700 §2.1.2' });
    }
  },
});
