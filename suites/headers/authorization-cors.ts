import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowClient } from '../checks/index.ts';

const ORIGIN = 'https://idpc-attacker.example';

export default defineScenario({
  id: 'headers.authorization-cors',
  title: "The authorization endpoint does not support CORS: another origin's script cannot read its responses",
  requirements: {
    rfc9700_2_6: {
      spec: 'RFC 9700',
      section: '2.6',
      level: 'MUST',
      party: 'server',
      note: 'CORS must not be supported at the authorization endpoint',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    capabilities: ['endpoint:authorization'],
  },
  catches: ['cors-at-authorization-endpoint'],
  async run(ctx) {
    const client = codeFlowClient(ctx);
    const pkce = ctx.pkce.create();
    const url = client
      ? ctx.authorizationUrl(client.role, { code_challenge: pkce.challenge, code_challenge_method: pkce.method }).url
      : ctx.target.endpoints.authorization!;
    const probes = [
      await ctx.http.get(url, { headers: { origin: ORIGIN }, label: `authorization request with Origin: ${ORIGIN}` }),
      await ctx.http.send({
        method: 'OPTIONS',
        url,
        headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
        label: 'CORS preflight at the authorization endpoint',
      }),
    ];
    for (const res of probes) {
      const allowed = res.header('access-control-allow-origin');
      await ctx.softly(() => {
        if (allowed === '*' || allowed === ORIGIN) {
          throw new CheckFailure(
            `The authorization endpoint answered a ${res === probes[0] ? 'GET' : 'preflight'} from ${ORIGIN} with ` +
              `Access-Control-Allow-Origin: ${allowed}, so a script there can read what it ` +
              `returns; ${ctx.req.rfc9700_2_6} says CORS must not be supported at the authorization endpoint.`,
            { requirement: ctx.req.rfc9700_2_6 },
          );
        }
      });
    }
  },
});
