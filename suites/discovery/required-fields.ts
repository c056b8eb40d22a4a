import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { discoveryFieldProblems, expectDiscoveryDocument, rfc8414FieldProblems } from '../checks/index.ts';

export default defineScenario({
  id: 'discovery.required-fields',
  title:
    'Every REQUIRED discovery field is present and well typed: for an OpenID provider code among the response types, ' +
    'RS256 among the ID token algorithms, openid among the scopes; for an OAuth 2.0 authorization server those of ' +
    'RFC 8414 §2',
  requirements: {
    oidcDiscovery_3: { spec: 'OIDC Discovery', section: '3', level: 'MUST', party: 'server' },
    rfc8414_2: {
      spec: 'RFC 8414',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'the REQUIRED authorization server metadata, typed (an OAuth 2.0 authorization server)',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  catches: ['discovery-field-missing'],
  async run(ctx) {
    for (const exchange of ctx.target.discoveryEvidence) ctx.evidence.add(exchange);
    const as = ctx.target.kind.protocol === 'oauth2';
    const per = as ? ctx.req.rfc8414_2 : ctx.req.oidcDiscovery_3;
    const doc = expectDiscoveryDocument(ctx.target, per);
    const problems = as ? rfc8414FieldProblems(doc) : discoveryFieldProblems(doc);
    if (problems.length) {
      throw new CheckFailure(`The discovery document is not what ${per.label} requires: ${problems.join('; ')}.`, {
        requirement: per,
        kind: 'refused-wrongly',
      });
    }
  },
});
