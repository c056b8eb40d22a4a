import {
  CheckFailure,
  type PageModel,
  type PageReference,
  defineScenario,
  readPage,
} from '../../harness/scenario/scenario.ts';
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

/** What a page refers to on another origin, resolved against its URL (http and https only). */
function outgoing(page: PageModel): (PageReference & { href: string })[] {
  const origin = new URL(page.url).origin;
  return (page.references ?? []).flatMap((r) => {
    let href: URL;
    try {
      href = new URL(r.url, page.url);
    } catch {
      return [];
    }
    return /^https?:$/.test(href.protocol) && href.origin !== origin ? [{ ...r, href: href.href }] : [];
  });
}

export default defineScenario({
  id: 'headers.referrer-policy',
  title:
    'The login, consent, device activation and error pages send their URL (state, request parameters) to no other ' +
    'site: no third-party resource or external link without a Referrer-Policy that suppresses the Referer',
  requirements: {
    rfc9700_4_2_4: {
      spec: 'RFC 9700',
      section: '4.2.4',
      level: 'SHOULD',
      party: 'server',
      note: 'no third-party resources or external links on the authorization endpoint page; Referrer-Policy helps',
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
    let judged = 0;
    for (const page of pages) {
      const name = `The ${page.kind} page (${page.url})`;
      if (page.body === undefined) {
        ctx.evidence.note(`${name}: its HTML was not read, so what it loads and links cannot be told; not judged.`);
        continue;
      }
      judged++;
      const model = readPage(page.body, page.url, 200);
      const headers = page.headers instanceof Headers ? Object.fromEntries(page.headers) : page.headers;
      const header = headers['referrer-policy'];
      const meta = model.metas?.find((m) => m.name === 'referrer')?.content;
      const policy = effectiveReferrerPolicy([header, meta].filter(Boolean).join(','));
      const refs = outgoing(model);
      // A reference carries the URL unless a link says noreferrer or the policy (its own, else the page's) limits it.
      const leaking = refs.filter(
        (r) =>
          !(r.kind === 'link' && r.noreferrer) &&
          !LIMITING.has(effectiveReferrerPolicy(r.referrerPolicy) ?? policy ?? ''),
      );
      const listed = refs.map((r) => `${r.tag} ${r.href}${r.noreferrer ? ' rel=noreferrer' : ''}`).join(', ');
      const scripts = model.scripts ? `; ${model.scripts} script element(s), whose own requests are not seen` : '';
      ctx.evidence.note(
        `${name}: Referrer-Policy ${header ?? '(none)'}, meta referrer ${meta ?? '(none)'}; ` +
          `${refs.length} reference(s) to other origins${refs.length ? ` (${listed})` : ''}${scripts}`,
      );
      if (!leaking.length) continue;
      await ctx.softly(() => {
        const what = leaking
          .slice(0, 5)
          .map((r) => `${r.kind === 'load' ? 'loads' : 'links to'} ${r.href} (${r.tag})`)
          .join(', ');
        throw new CheckFailure(
          `${name} ${what}${leaking.length > 5 ? ` and ${leaking.length - 5} more` : ''} on another origin with ` +
            (policy
              ? `Referrer-Policy ${policy}, which sends the full URL there`
              : 'no Referrer-Policy (header or meta)') +
            `; ${ctx.req.rfc9700_4_2_4} says the page should not include third-party resources or links to external ` +
            `sites, and a policy such as no-referrer keeps its URL, with state and the request, from them (browsers ` +
            `that default to strict-origin-when-cross-origin limit it, others do not).`,
          { requirement: ctx.req.rfc9700_4_2_4 },
        );
      });
    }
    if (!judged) ctx.skip('no page met had its HTML read (the login driver reports none)');
  },
});
