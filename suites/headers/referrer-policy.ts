import { CheckFailure, defineScenario, readPage } from '../../harness/scenario.ts';
import { effectiveReferrerPolicy } from '../../protocol/referrer-policy.ts';
import { codeFlowClient, pagesMet } from '../checks/index.ts';

/** Policies that never send a path or query to another origin (W3C Referrer Policy §3). */
const LIMITING = new Set([
  'no-referrer',
  'same-origin',
  'strict-origin',
  'origin',
  'strict-origin-when-cross-origin',
  'origin-when-cross-origin',
]);

/** The page's `<meta name="referrer">` policy, read by the page reader. */
function metaPolicy(html: string | undefined): string | undefined {
  if (html === undefined) return undefined;
  return readPage(html, 'about:blank', 0).metas?.find((m) => m.name === 'referrer')?.content;
}

export default defineScenario({
  id: 'headers.referrer-policy',
  title:
    'The login, consent, device activation and error pages set a Referrer-Policy that keeps their URL (state, ' +
    'request parameters) from other sites',
  requirements: {
    rfc9700_4_2_4: {
      spec: 'RFC 9700',
      section: '4.2.4',
      level: 'SHOULD',
      party: 'server',
      note: 'suppress the Referer with a Referrer Policy (header or meta), e.g. no-referrer',
    },
  },
  severity: 'low',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2', 'device'],
    user: true,
    capabilities: ['endpoint:authorization'],
  },
  catches: ['no-referrer-policy'],
  async run(ctx) {
    const client =
      codeFlowClient(ctx, (c) => c.firstParty === false) ??
      codeFlowClient(ctx) ??
      ctx.skip('needs a code-flow client with a redirect URI');
    const { pages, notMet } = await pagesMet(ctx, client);
    if (pages.length === 0)
      return ctx.skip(`no login, consent, device activation or error page was reached: ${notMet.join('; ')}`);
    for (const page of pages) {
      const headers = page.headers instanceof Headers ? Object.fromEntries(page.headers) : page.headers;
      const header = headers['referrer-policy'];
      const meta = metaPolicy(page.body);
      const policy = effectiveReferrerPolicy([header, meta].filter(Boolean).join(','));
      const name = `The ${page.kind} page (${page.url})`;
      ctx.evidence.note(`${name}: Referrer-Policy ${header ?? '(none)'}, meta referrer ${meta ?? '(none)'}`);
      await ctx.softly(() => {
        if (!policy)
          throw new CheckFailure(
            `${name} sets no Referrer-Policy (header or meta); ${ctx.req.rfc9700_4_2_4} recommends one such as ` +
              `no-referrer so that its URL, with state and the request, is not sent to other sites (browsers that ` +
              `default to strict-origin-when-cross-origin limit it, others do not).`,
            { requirement: ctx.req.rfc9700_4_2_4 },
          );
        if (!LIMITING.has(policy))
          throw new CheckFailure(
            `${name} sets Referrer-Policy ${policy}, which sends the full URL to other ` +
              `sites; ${ctx.req.rfc9700_4_2_4} recommends a policy that suppresses it, such as no-referrer.`,
            { requirement: ctx.req.rfc9700_4_2_4 },
          );
      });
    }
  },
});
