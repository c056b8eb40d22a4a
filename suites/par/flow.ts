import { CheckFailure, GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { codeFlowClient, dpopExpected, dpopKey, openPushed, pushCodeRequest, tokensOf } from '../checks/index.ts';

export default defineScenario({
  id: 'par.flow',
  title:
    'A pushed authorization request gets 201 with a request_uri and expires_in; the authorization request by ' +
    'request_uri gets a code that redeems',
  requirements: {
    rfc9126_2_2: {
      spec: 'RFC 9126',
      section: '2.2',
      level: 'MUST',
      party: 'server',
      note: '201 Created with request_uri and expires_in',
    },
    rfc9126_4: {
      spec: 'RFC 9126',
      section: '4',
      level: 'MUST',
      party: 'server',
      note: 'the authorization request by client_id and request_uri',
    },
    fapi2_5_3_2_2: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'support client-authenticated PAR; request_uri expires_in below 600 seconds',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  catches: ['state-dropped'],
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['endpoint:pushedAuthorization', 'endpoint:authorization', 'endpoint:token'],
  },
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const pushed = await pushCodeRequest(ctx, client, ctx.req.rfc9126_2_2);
    const expires = pushed.expiresIn;
    await ctx.softly(() => {
      if (typeof expires !== 'number' || !Number.isInteger(expires) || expires <= 0) {
        throw new CheckFailure(
          `The push answered expires_in ${JSON.stringify(expires)}; ${ctx.req.rfc9126_2_2} requires a positive ` +
            `integer (the request_uri's lifetime in seconds).`,
          { requirement: ctx.req.rfc9126_2_2, kind: 'refused-wrongly' },
        );
      }
      if (ctx.applies(ctx.req.fapi2_5_3_2_2) && expires >= 600) {
        throw new CheckFailure(
          `The request_uri lives ${expires} seconds; FAPI 2.0 SP §5.3.2.2 requires expires_in below 600.`,
          { requirement: ctx.req.fapi2_5_3_2_2 },
        );
      }
    });
    const outcome = await openPushed(ctx, client.clientId, pushed.requestUri, [client.redirectUri]);
    if (outcome.kind !== 'redirect' || !outcome.params.code) {
      throw new CheckFailure(
        `The authorization request by ` +
          `request_uri ${
            outcome.kind === 'redirect'
              ? `redirected with ${outcome.params.error ? `error=${outcome.params.error}` : 'no code'}`
              : `stopped (${outcome.reason})`
          }; RFC 9126 §4 requires it to be processed as the pushed request.`,
        { requirement: ctx.req.rfc9126_4, kind: 'refused-wrongly' },
      );
    }
    if (outcome.params.state !== pushed.request.state) {
      throw new CheckFailure(
        `The response's state is ${JSON.stringify(outcome.params.state)}, not the ` +
          `pushed ${JSON.stringify(pushed.request.state)}; RFC 9126 §4 requires the pushed request to be the ` +
          `one processed.`,
        { requirement: ctx.req.rfc9126_4, kind: 'refused-wrongly' },
      );
    }
    const url = ctx.target.endpoints.token!;
    const key = dpopExpected(ctx) ? dpopKey(ctx) : undefined;
    const res = await ctx.http.token(
      client,
      {
        grant_type: GRANT.code,
        code: outcome.params.code,
        redirect_uri: pushed.request.redirect_uri,
        code_verifier: pushed.verifier,
      },
      {
        label: "token request for the pushed request's code",
        ...(key ? { headers: { dpop: key.proof('POST', url) } } : {}),
      },
    );
    tokensOf(res, 'redeeming the code of the pushed request');
  },
});
