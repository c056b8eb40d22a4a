import { defineScenario } from '../../harness/scenario.ts';
import { expectDiscoveryDocument, expectIssuerMatches, expectRequiredDiscoveryFields } from '../checks/index.ts';

export default defineScenario({
  id: 'discovery.document',
  title: 'The discovery document has the required fields and its issuer equals the configured issuer',
  requirements: {
    oidcDiscovery_3: { spec: 'OIDC Discovery', section: '3', level: 'MUST', party: 'server' },
    oidcDiscovery_4: { spec: 'OIDC Discovery', section: '4', level: 'MUST', party: 'server' },
    oidcDiscovery_4_3: { spec: 'OIDC Discovery', section: '4.3', level: 'MUST', party: 'server' },
    fapi2Metadata: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'discovery metadata distributed by the metadata document (OIDC Discovery, RFC 8414)',
    },
  },
  severity: 'high',
  catches: ['discovery-issuer-mismatch', 'discovery-field-missing'],
  async run(ctx) {
    for (const exchange of ctx.target.discoveryEvidence) ctx.evidence.add(exchange);
    const doc = expectDiscoveryDocument(ctx.target, ctx.req.oidcDiscovery_4);
    await ctx.softly(() => expectRequiredDiscoveryFields(doc, ctx.req.oidcDiscovery_3));
    expectIssuerMatches(doc, ctx.target.issuer, ctx.req.oidcDiscovery_4_3);
  },
});
