import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import {
  FAPI2_PAR,
  PAR_PROBE_REQUIRES,
  codeFlowClient,
  describeResponse,
  expectControl,
  pushCodeRequest,
  pushTaken,
  soundPush,
} from '../checks/index.ts';

export default defineScenario({
  id: 'par.http-method',
  title: 'The PAR endpoint answers a GET (the pushed request in the query string) with 405 Method Not Allowed',
  requirements: {
    // "If the request did not use the POST method, the authorization server responds with an HTTP 405 (Method Not
    // Allowed) status code": the server's answer, stated without a BCP 14 keyword as RFC 6749 §5.2 states its 400
    // (token.error-format judges that one as a MUST too). §2.1 has the client send an HTTP POST, with no keyword.
    rfc9126_2_3: {
      spec: 'RFC 9126',
      section: '2.3',
      level: 'MUST',
      party: 'server',
      note: 'a request that did not use POST gets HTTP 405 (Method Not Allowed)',
    },
    fapi2_5_3_2_2: FAPI2_PAR,
  },
  severity: 'low',
  appliesTo: 'oauth2',
  requires: PAR_PROBE_REQUIRES,
  catches: ['par-accepts-get'],
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const push = soundPush(ctx, client);
    const url = new URL(push.url);
    for (const [name, value] of Object.entries(push.fields)) url.searchParams.set(name, value);
    const res = await ctx.http.send({
      method: 'GET',
      url: url.href,
      headers: push.headers,
      label: `pushed authorization request as ${client.role} sent with GET, its parameters in the query string`,
    });
    const rule = ctx.applies(ctx.req.rfc9126_2_3) ? ctx.req.rfc9126_2_3 : ctx.req.fapi2_5_3_2_2;
    const taken = pushTaken(res);
    if (taken) {
      throw new CheckFailure(
        `The PAR endpoint answered a GET (the ${client.role} client's pushed request in the query string) with ` +
          `${taken}; ` +
          `${rule.label} requires HTTP 405 to a request that did not use POST.`,
        { requirement: rule },
      );
    }
    const sound = `the same pushed request as ${client.role} sent with POST`;
    await expectControl('the GET was refused', sound, () => pushCodeRequest(ctx, client));
    if (res.status !== 405) {
      throw new CheckFailure(
        `The PAR endpoint refused a GET with ${describeResponse(res)}, not 405; ${rule.label} answers a request ` +
          'that did not use POST with HTTP 405 (Method Not Allowed).',
        { requirement: rule, kind: 'refused-wrongly' },
      );
    }
    ctx.evidence.note(`The GET was refused with ${describeResponse(res)}.`);
  },
});
