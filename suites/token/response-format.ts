import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { tokenResponseDeviations } from '../../harness/flows/token-set.ts';
import { describeResponse, tokenGrantsAvailable, tokenResponses } from '../checks/index.ts';

/**
 * RFC 6749 §5.1 for every grant the run can use: each successful token response is application/json with
 * access_token and token_type (REQUIRED) and Cache-Control: no-store. Other scenarios that meet such a response on
 * their way only note it (the runner), so a deviation is reported here, under its own name.
 */
export default defineScenario({
  id: 'token.response-format',
  title:
    'Every successful token response (each grant the run uses) is JSON with access_token and token_type, and carries ' +
    'Cache-Control: no-store',
  requirements: {
    rfc6749_5_1: {
      spec: 'RFC 6749',
      section: '5.1',
      level: 'MUST',
      party: 'server',
      note: 'access_token and token_type REQUIRED, application/json, Cache-Control: no-store',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { optionalRoles: ['public', 'confidential', 'confidential2', 'machine'], capabilities: ['endpoint:token'] },
  catches: ['token-type-missing', 'no-store-missing'],
  async run(ctx) {
    const missing = tokenGrantsAvailable(ctx);
    if (missing) return ctx.skip(missing);
    const responses = await tokenResponses(ctx);
    for (const { what, res } of responses) {
      await ctx.softly(() => {
        if (res.status !== 200 || typeof res.body.access_token !== 'string') {
          ctx.evidence.note(`The token request (${what}) got ${describeResponse(res)}: no token response to judge.`);
          return;
        }
        const found = tokenResponseDeviations({ status: res.status, header: (n) => res.header(n), json: res.json });
        if (found.length) {
          throw new CheckFailure(
            `The token response to ${what}: ${found.join('; ')}; ${ctx.req.rfc6749_5_1.label} requires ` +
              'access_token and token_type in an application/json object, and Cache-Control: no-store.',
            {
              requirement: ctx.req.rfc6749_5_1,
              kind: found.some((f) => f.includes('no-store')) ? 'accepted' : 'refused-wrongly',
            },
          );
        }
        ctx.evidence.note(`The token response to ${what} has the form RFC 6749 §5.1 requires.`);
      });
    }
    if (!responses.some(({ res }) => res.status === 200 && typeof res.body.access_token === 'string'))
      ctx.skip(`no grant the run used returned tokens (${responses.map((r) => r.what).join(', ')})`);
  },
});
