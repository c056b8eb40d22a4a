import { defineScenario } from '../../harness/scenario/scenario.ts';
import { expectHeader, tokenGrantsAvailable, tokenResponses } from '../checks/index.ts';

export default defineScenario({
  id: 'token.no-store',
  title:
    'Token responses carry Cache-Control: no-store (each grant the run can use: code, refresh, client credentials)',
  requirements: {
    rfc6749_5_1: { spec: 'RFC 6749', section: '5.1', level: 'MUST', party: 'server', note: 'Cache-Control: no-store' },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: { optionalRoles: ['public', 'confidential', 'confidential2', 'machine'], capabilities: ['endpoint:token'] },
  catches: ['no-store-missing'],
  async run(ctx) {
    const missing = tokenGrantsAvailable(ctx);
    if (missing) return ctx.skip(missing);
    const responses = (await tokenResponses(ctx)).filter(
      ({ res }) => res.status === 200 && typeof res.body.access_token === 'string',
    );
    if (!responses.length) return ctx.skip('no grant the run could use returned tokens');
    for (const { what, res } of responses) {
      await ctx.softly(() => {
        expectHeader(res, 'Cache-Control', /(^|,)\s*no-store\s*(,|$)/i, {
          when: `The token response to ${what}`,
          per: ctx.req.rfc6749_5_1,
          want: 'Cache-Control: no-store on every response with tokens',
        });
      });
    }
  },
});
