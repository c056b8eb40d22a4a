import { defineScenario } from '../../harness/scenario/scenario.ts';
import {
  expectDiscoveryDocument,
  expectIssuerMatches,
  expectRequiredDiscoveryFields,
  requiredFieldsFor,
} from '../checks/index.ts';
import { mcpRequirement } from '../../harness/model/mcp-requirement.ts';

/**
 * The metadata document the target published (never the config's discoveryOverrides): OIDC Discovery §3/§4 for an
 * OpenID provider, RFC 8414 §2/§3 for an OAuth 2.0 authorization server (target kind, docs/target-config.md).
 */
export default defineScenario({
  id: 'discovery.document',
  title: 'The discovery document has the required fields and its issuer equals the configured issuer',
  requirements: {
    oidcDiscovery_3: { spec: 'OIDC Discovery', section: '3', level: 'MUST', party: 'server' },
    oidcDiscovery_4: { spec: 'OIDC Discovery', section: '4', level: 'MUST', party: 'server' },
    oidcDiscovery_4_3: { spec: 'OIDC Discovery', section: '4.3', level: 'MUST', party: 'server' },
    rfc8414_2: {
      spec: 'RFC 8414',
      section: '2',
      level: 'MUST',
      party: 'server',
      note: 'the REQUIRED authorization server metadata (an OAuth 2.0 authorization server)',
    },
    rfc8414_3: {
      spec: 'RFC 8414',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'the metadata is a JSON object at the well-known URL (an OAuth 2.0 authorization server)',
    },
    rfc8414_3_3: {
      spec: 'RFC 8414',
      section: '3.3',
      level: 'MUST',
      party: 'server',
      note: 'issuer identical to the issuer identifier (an OAuth 2.0 authorization server)',
    },
    fapi2Metadata: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'discovery metadata distributed by the metadata document (OIDC Discovery, RFC 8414)',
    },
    mcp_2026_07_28: mcpRequirement('discovery/issuer-identical', '2026-07-28', {
      note: 'issuer identical to the issuer identifier the well-known URL was built from',
    }),
  },
  severity: 'high',
  appliesTo: 'oauth2',
  catches: ['discovery-issuer-mismatch', 'discovery-field-missing'],
  async run(ctx) {
    for (const exchange of ctx.target.discoveryEvidence) ctx.evidence.add(exchange);
    const as = ctx.target.kind.protocol === 'oauth2';
    if (as) ctx.evidence.note(`Judged as RFC 8414 authorization server metadata: ${ctx.target.kind.why}.`);
    const doc = expectDiscoveryDocument(ctx.target, as ? ctx.req.rfc8414_3 : ctx.req.oidcDiscovery_4);
    await ctx.softly(() =>
      expectRequiredDiscoveryFields(
        doc,
        as ? ctx.req.rfc8414_2 : ctx.req.oidcDiscovery_3,
        requiredFieldsFor(ctx.target),
      ),
    );
    expectIssuerMatches(doc, ctx.target.issuer, as ? ctx.req.rfc8414_3_3 : ctx.req.oidcDiscovery_4_3);
  },
});
