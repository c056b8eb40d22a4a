import { setTimeout as delay } from 'node:timers/promises';
import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { authorizationAnswer, codeFlowClient, openPushed, pushCodeRequest, pushedCode } from '../checks/index.ts';

/** A request_uri that lives at most this long is also waited out and tried after it expired. */
const WAIT_LIMIT_SECONDS = 10;

export default defineScenario({
  id: 'par.request-uri-single-use',
  title: 'A pushed request_uri works once, and not after it expired',
  requirements: {
    rfc9126_4: {
      spec: 'RFC 9126',
      section: '4',
      level: 'SHOULD',
      party: 'server',
      note: 'request_uri values are one-time use',
    },
    rfc9126_2_2: {
      spec: 'RFC 9126',
      section: '2.2',
      level: 'MUST',
      party: 'server',
      note: 'the request_uri expires after expires_in seconds',
    },
    fapi2_5_3_2_2: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.2',
      level: 'MUST',
      party: 'server',
      note: 'PAR as the only way in; request_uri lifetime below 600 seconds',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['endpoint:pushedAuthorization', 'endpoint:authorization'],
  },
  catches: ['par-request-uri-reuse'],
  timeoutMs: 45_000,
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const { pushed } = await pushedCode(ctx, client);
    const again = await openPushed(ctx, client.clientId, pushed.requestUri, [client.redirectUri]);
    const answer = authorizationAnswer(again, 'The second authorization request with the same request_uri');
    if (answer.kind === 'code') {
      throw new CheckFailure(
        `A request_uri that had already given a code was accepted again and gave a second ` +
          `code; ${ctx.req.rfc9126_4} asks servers to treat request_uri values as one-time use (FAPI 2.0 SP ` +
          `§5.3.2.2 builds on it).`,
        { requirement: ctx.req.rfc9126_4 },
      );
    }
    ctx.evidence.note(`The second use ${answer.how}.`);
    const fresh = await pushCodeRequest(ctx, client);
    const lifetime = typeof fresh.expiresIn === 'number' ? fresh.expiresIn : undefined;
    if (lifetime === undefined || lifetime > WAIT_LIMIT_SECONDS) {
      ctx.evidence.note(
        `The request_uri lives ${lifetime ?? 'an unstated number of'} seconds: longer than this scenario waits ` +
          `(${WAIT_LIMIT_SECONDS} s), so expiry was not tried.`,
      );
      return;
    }
    await delay((lifetime + 2) * 1000, undefined, { signal: ctx.signal });
    const late = authorizationAnswer(
      await openPushed(ctx, client.clientId, fresh.requestUri, [client.redirectUri]),
      'The authorization request with an expired request_uri',
    );
    if (late.kind === 'code') {
      throw new CheckFailure(
        `A request_uri used ${lifetime + 2} seconds after a push that said expires_in ${lifetime} still gave a ` +
          `code; RFC 9126 §2.2 makes it expire.`,
        { requirement: ctx.req.rfc9126_2_2 },
      );
    }
  },
});
