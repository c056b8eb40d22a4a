import {
  CheckFailure,
  defineScenario,
  GRANT,
  type HttpResponse,
  PreconditionError,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { describeResponse, expectControl, revocationRequest, tokenProbe } from '../checks/index.ts';

const OWNER = 'confidential';
const OTHER = 'confidential2';

/** A refresh as the owner: whether the refresh token still gets tokens. */
async function refreshAnswer(ctx: ScenarioContext, token: string, label: string): Promise<HttpResponse> {
  return ctx.http.token(ctx.client(OWNER), { grant_type: GRANT.refresh, refresh_token: token }, { label });
}

export default defineScenario({
  id: 'revocation.client-bound',
  title: "A client cannot revoke a token issued to another client: the token stays valid after the other's request",
  requirements: {
    rfc7009_2_1: {
      spec: 'RFC 7009',
      section: '2.1',
      level: 'MUST',
      party: 'server',
      note:
        'a revocation request for a token not issued to the client making it is refused (stated without a BCP 14 ' +
        'keyword)',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: {
    roles: [OWNER, OTHER],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token', 'endpoint:revocation'],
  },
  catches: ['revocation-not-client-bound'],
  async run(ctx) {
    const probe = tokenProbe(ctx, OWNER);
    const { tokens } = await ctx.flows.tokens(OWNER, probe.flow);
    const before = await probe.works(tokens);
    if (!before.works)
      throw new PreconditionError(`the access token just issued did not work ${probe.where} (${before.answer})`);

    // The other client, authenticated with its own credentials, asks to revoke the owner's tokens.
    const asked: [string, HttpResponse][] = [];
    if (tokens.refresh_token)
      asked.push(['refresh token', await revocationRequest(ctx, OTHER, tokens.refresh_token, 'refresh_token')]);
    asked.push(['access token', await revocationRequest(ctx, OTHER, tokens.access_token, 'access_token')]);
    for (const [what, res] of asked) {
      if (res.status === 401 || res.body.error === 'invalid_client')
        throw new PreconditionError(
          `${OTHER} could not authenticate at the revocation endpoint (${describeResponse(res)}, revoking the ` +
            `${OWNER} client's ${what}): its request shows nothing about the token's owner`,
        );
    }
    const answers = asked.map(([what, res]) => `${what}: ${describeResponse(res)}`).join('; ');
    ctx.evidence.note(`The ${OTHER} client's revocation requests for the ${OWNER} client's tokens — ${answers}.`);
    if (asked.some(([, res]) => res.status === 200))
      ctx.evidence.note(
        'RFC 7009 §2.1 says such a request "is refused and the client is informed of the error"; an answer of 200 ' +
          'is noted, not judged: what the sentence protects is the token, judged below.',
      );

    const after = await probe.works(tokens);
    if (!after.works)
      throw new CheckFailure(
        `After the ${OTHER} client asked to revoke the ${OWNER} client's tokens, the access token no longer works ` +
          `${probe.where} (${after.answer}); ${ctx.req.rfc7009_2_1.label} refuses a revocation request for a ` +
          'token not issued to the client making it.',
        { requirement: ctx.req.rfc7009_2_1 },
      );
    if (tokens.refresh_token && probe.where !== 'at the token endpoint (refresh)') {
      const res = await refreshAnswer(ctx, tokens.refresh_token, 'refresh by the owner after the other revoked it');
      if (res.status >= 400 && res.status < 500 && res.body.error === 'invalid_grant')
        throw new CheckFailure(
          `After the ${OTHER} client asked to revoke the ${OWNER} client's refresh token, the owner's refresh got ` +
            `${describeResponse(res)}; ${ctx.req.rfc7009_2_1.label} refuses a revocation request for a token not ` +
            'issued to the client making it.',
          { requirement: ctx.req.rfc7009_2_1 },
        );
      ctx.evidence.note(`The owner's refresh afterwards: ${describeResponse(res)}.`);
    }
    ctx.evidence.note(`The ${OWNER} client's access token still works ${probe.where} (${after.answer}).`);

    await expectControl(
      `the ${OTHER} client's revocation left the tokens valid`,
      `the ${OWNER} client revoking its own ${tokens.refresh_token ? 'refresh' : 'access'} token`,
      async () => {
        const own = await ctx.flows.tokens(OWNER, probe.flow);
        const refresh = own.tokens.refresh_token;
        const res = refresh
          ? await revocationRequest(ctx, OWNER, refresh, 'refresh_token')
          : await revocationRequest(ctx, OWNER, own.tokens.access_token, 'access_token');
        if (res.status !== 200) throw new PreconditionError(`the revocation answered ${describeResponse(res)}`);
        if (refresh) {
          const again = await refreshAnswer(ctx, refresh, 'refresh with the refresh token its owner revoked');
          if (again.status === 200) throw new PreconditionError('the revoked refresh token still got tokens');
          return;
        }
        const dead = await probe.works(own.tokens);
        if (dead.works) throw new PreconditionError(`the revoked access token still works ${probe.where}`);
      },
    );
  },
});
