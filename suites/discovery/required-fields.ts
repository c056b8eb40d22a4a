import { CheckFailure, defineScenario } from '../../harness/scenario.ts';
import { discoveryFieldProblems, expectDiscoveryDocument } from '../checks/index.ts';

export default defineScenario({
  id: 'discovery.required-fields',
  title:
    'Every REQUIRED discovery field is present and well typed: code among the response types, RS256 among the ID ' +
    'token algorithms, openid among the scopes',
  requirements: {
    oidcDiscovery_3: { spec: 'OIDC Discovery', section: '3', level: 'MUST', party: 'server' },
  },
  severity: 'medium',
  catches: ['discovery-field-missing'],
  async run(ctx) {
    for (const exchange of ctx.target.discoveryEvidence) ctx.evidence.add(exchange);
    const problems = discoveryFieldProblems(expectDiscoveryDocument(ctx.target, ctx.req.oidcDiscovery_3));
    if (problems.length) {
      throw new CheckFailure(`The discovery document is not what OIDC Discovery §3 requires: ${problems.join('; ')}.`, {
        requirement: ctx.req.oidcDiscovery_3,
        kind: 'refused-wrongly',
      });
    }
  },
});
