import { CheckFailure, PreconditionError, defineScenario, describeOutcome } from '../../harness/scenario.ts';
import { codeFlowClient } from '../checks/index.ts';

/** Policies that never send a path or query to another origin (W3C Referrer Policy §3). */
const LIMITING = new Set([
  'no-referrer',
  'same-origin',
  'strict-origin',
  'origin',
  'strict-origin-when-cross-origin',
  'origin-when-cross-origin',
]);

/** The effective policy of a header or meta value: the last token a browser knows (Referrer Policy §4.1). */
function effective(value: string): string | undefined {
  const known = new Set([...LIMITING, 'unsafe-url', 'no-referrer-when-downgrade']);
  return value
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => known.has(t))
    .pop();
}

function metaPolicy(html: string | undefined): string | undefined {
  const tag = html?.match(/<meta\b[^>]*\bname\s*=\s*["']?referrer["']?[^>]*>/i)?.[0];
  return tag?.match(/\bcontent\s*=\s*["']([^"']*)["']/i)?.[1];
}

export default defineScenario({
  id: 'headers.referrer-policy',
  title:
    'The authorization pages set a Referrer-Policy that keeps their URL (state, request parameters) from other sites',
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
  requires: { user: true, capabilities: ['endpoint:authorization'] },
  catches: ['no-referrer-policy'],
  async run(ctx) {
    const client =
      codeFlowClient(ctx, (c) => c.firstParty === false) ??
      codeFlowClient(ctx) ??
      ctx.skip('needs a code-flow client with a redirect URI');
    const pkce = ctx.pkce.create();
    const outcome = await ctx.authorize(client.role, {
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    });
    const visits = outcome.visits ?? ctx.skip(`the ${ctx.login.name} login driver does not report page headers`);
    if (visits.length === 0) {
      // No premise, no verdict: an IdP that asks for nothing on the way shows no page. A walk that stopped before the
      // redirect URI without passing a login or consent page is a set-up problem.
      if (outcome.kind === 'redirect') return ctx.skip('the IdP showed no login or consent page on the way');
      throw new PreconditionError(
        `no login or consent page was reached: the authorization ${describeOutcome(outcome)}`,
      );
    }
    for (const page of visits) {
      const header = page.headers['referrer-policy'];
      const meta = metaPolicy(page.body);
      const policy = effective([header, meta].filter(Boolean).join(','));
      const name = `The ${page.kind} page (${page.url.split('?')[0]})`;
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
