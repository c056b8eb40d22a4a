import { defineScenario } from '../../harness/scenario.ts';
import { CODE_FLOW_ROLES, expectFramingForbidden, findClient, pagesMet, partyClient } from '../checks/index.ts';

export default defineScenario({
  id: 'headers.clickjacking',
  title:
    'The login, consent, device activation and error pages forbid framing (X-Frame-Options or CSP frame-ancestors)',
  requirements: {
    rfc9700_4_16: { spec: 'RFC 9700', section: '4.16', level: 'MUST', party: 'server', note: 'prevent clickjacking' },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['public', 'confidential', 'confidential2', 'device'],
    user: true,
    capabilities: ['endpoint:authorization'],
  },
  catches: ['no-frame-protection'],
  async run(ctx) {
    // A third-party client first: it is the one shown a consent page.
    const client = partyClient(ctx, false) ?? findClient(ctx, CODE_FLOW_ROLES, (c) => !!c.redirectUri);
    const { pages, notMet } = await pagesMet(ctx, client);
    if (pages.length === 0)
      return ctx.skip(`no login, consent, device activation or error page was reached: ${notMet.join('; ')}`);
    for (const page of pages)
      await ctx.softly(() =>
        expectFramingForbidden({ name: `${page.kind} page`, ...page }, { per: ctx.req.rfc9700_4_16 }),
      );
  },
});
