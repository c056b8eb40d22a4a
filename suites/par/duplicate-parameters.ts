import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  FAPI2_PAR,
  PAR_PROBE_REQUIRES,
  REPEATED_PARAMETER,
  codeFlowClient,
  describeResponse,
  expectControl,
  pushCodeRequest,
  pushTaken,
  soundPush,
} from '../checks/index.ts';

export default defineScenario({
  id: 'par.duplicate-parameters',
  title: 'A pushed authorization request with a parameter included twice (two different state values) is refused',
  requirements: {
    // "The AS MUST validate the pushed request as it would an authorization request sent to the authorization
    // endpoint", where a request that includes a parameter more than once is invalid_request (RFC 6749 §4.1.2.1).
    rfc9126_2_1: {
      spec: 'RFC 9126',
      section: '2.1',
      level: 'MUST',
      party: 'server',
      note: 'the pushed request validated as an authorization request at the authorization endpoint would be',
    },
    ...REPEATED_PARAMETER,
    fapi2_5_3_2_2: FAPI2_PAR,
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: PAR_PROBE_REQUIRES,
  catches: ['par-duplicate-params-accepted'],
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const push = soundPush(ctx, client);
    const body = new URLSearchParams(push.fields);
    // A sound push but for a second, different state: nothing else in it can be the cause of a refusal.
    body.append('state', ctx.random());
    const res = await ctx.http.send({
      method: 'POST',
      url: push.url,
      headers: { ...push.headers, 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
      label: `pushed authorization request as ${client.role} with state twice`,
    });
    const rule = ctx.applies(ctx.req.rfc9126_2_1) ? ctx.req.rfc9126_2_1 : ctx.req.fapi2_5_3_2_2;
    const taken = pushTaken(res);
    if (taken) {
      throw new CheckFailure(
        `The PAR endpoint accepted a pushed request with state twice (two different values) as ${client.role}: ` +
          `${taken}; ${rule.label} validates ` +
          'it as an authorization request, where a parameter included more than once is invalid_request ' +
          '(RFC 6749 §3.1, §4.1.2.1).',
        { requirement: rule },
      );
    }
    ctx.evidence.note(`The push with state twice was refused: ${describeResponse(res)}.`);
    const sound = `the same pushed request as ${client.role} with state once`;
    await expectControl('the push with state twice was refused', sound, () => pushCodeRequest(ctx, client));
  },
});
