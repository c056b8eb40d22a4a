import { defineScenario, readPage } from '../../harness/scenario/scenario.ts';
import type { MetPage } from '../checks/index.ts';
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
    // Clickjacking makes a user act on a framed page: a page with nothing to act on (an error page with only a link
    // to documentation) is no target. Controls rendered by a script cannot be seen: such a page is judged.
    const targets = pages.filter((page) => {
      const why = nothingToActOn(page);
      if (why) ctx.evidence.note(`The ${page.kind} page (${page.url}) is not judged: ${why}.`);
      return !why;
    });
    if (targets.length === 0)
      return ctx.skip(
        `no page met has controls to act on (${pages.map((p) => `${p.kind} page`).join(', ')}); ` +
          `not met: ${notMet.join('; ') || 'none'}`,
      );
    for (const page of targets)
      await ctx.softly(() =>
        expectFramingForbidden({ name: `${page.kind} page`, ...page }, { per: ctx.req.rfc9700_4_16 }),
      );
  },
});

/**
 * Why a page offers a clickjacker nothing to make the user do, or undefined when it does: a form control or button
 * (a link only navigates the frame; a scripted one acts). Unknown (no HTML, or scripts that may render controls):
 * undefined, judged.
 */
function nothingToActOn(page: MetPage): string | undefined {
  if (page.body === undefined) return undefined;
  const model = readPage(page.body, page.url, 200);
  const acts = model.controls.some((c) => c.visible && !c.disabled && (c.tag !== 'a' || c.scripted));
  if (acts || model.forms.length || model.scripts) return undefined;
  const links = model.controls.filter((c) => c.tag === 'a').length;
  return `it has no form, no button and no other control to act on${links ? ` (only ${links} link(s))` : ''}`;
}
