import { defineScenario } from '../../harness/scenario.ts';
import { expectDiscoveryDocument, expectIssuerMatches, expectRequiredDiscoveryFields } from '../checks/index.ts';

export default defineScenario({
  id: 'discovery.document',
  title: 'The discovery document has the required fields and its issuer equals the configured issuer',
  requirements: [
    { spec: 'OIDC Discovery', section: '3', level: 'MUST' },
    { spec: 'OIDC Discovery', section: '4.3', level: 'MUST' },
    { spec: 'FAPI 2.0 SP', section: '5.3.2.1', level: 'MUST', note: 'discovery metadata distributed by the metadata document (OIDC Discovery, RFC 8414)' },
  ],
  severity: 'high',
  catches: ['discovery-issuer-mismatch'],
  async run(ctx) {
    for (const exchange of ctx.target.discoveryEvidence) ctx.evidence.add(exchange);
    const doc = expectDiscoveryDocument(ctx.target);
    await ctx.softly(() => expectRequiredDiscoveryFields(doc));
    expectIssuerMatches(doc, ctx.target.issuer);
  },
});
