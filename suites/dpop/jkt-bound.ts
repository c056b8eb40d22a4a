import {
  CheckFailure,
  PreconditionError,
  createDpopKey,
  defineScenario,
  describeOutcome,
  requiresPar,
  type Client,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { codeFlowClient, describeResponse, dpopAlgs, dpopKey, redeem, tokensOf } from '../checks/index.ts';

/** How the authorization request carries dpop_jkt: pushed to the PAR endpoint (RFC 9449 §10.1), or in the URL (§10). */
type Way = 'pushed' | 'front-channel';

const WAY_LABEL: Record<Way, string> = {
  pushed: 'in a pushed authorization request',
  'front-channel': 'in the authorization request URL',
};

export default defineScenario({
  id: 'dpop.jkt-bound',
  title:
    'A code asked with dpop_jkt (at the PAR endpoint or at the authorization endpoint) is redeemed only with a DPoP ' +
    'proof by that key',
  requirements: {
    rfc9449_10: {
      spec: 'RFC 9449',
      section: '10',
      level: 'MUST',
      party: 'server',
      note: "a token request whose DPoP proof key does not match the authorization request's dpop_jkt is rejected",
    },
    rfc9449_10_1: {
      spec: 'RFC 9449',
      section: '10.1',
      level: 'MUST',
      party: 'server',
      note: 'a server that supports PAR and DPoP supports dpop_jkt in the pushed request',
    },
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'a server using DPoP supports Authorization Code Binding to DPoP Key',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['dpop-jkt-unchecked'],
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    // Premise: the target advertises DPoP (RFC 9449 §5.1); whether it supports dpop_jkt is advertised nowhere.
    const key = dpopKey(ctx);
    const par = ctx.target.endpoints.pushedAuthorization !== undefined;
    const ways: Way[] = [
      ...(par ? (['pushed'] as const) : []),
      ...(requiresPar(ctx.target) ? [] : ['front-channel' as const]),
    ];
    if (ways.length === 0) ctx.skip('the target requires PAR but advertises no pushed_authorization_request_endpoint');
    const ignored: Way[] = [];
    for (const way of ways) {
      // The control: the key dpop_jkt names redeems its code.
      const control = await boundCode(ctx, client, key.thumbprint, way);
      tokensOf(
        await redeem(ctx, client, control, key, `token request with a proof by the dpop_jkt key (${way})`),
        `redeeming a code asked with dpop_jkt ${WAY_LABEL[way]}, with a proof by that key`,
      );
      const code = await boundCode(ctx, client, key.thumbprint, way);
      const other = createDpopKey(dpopAlgs(ctx));
      const res = await redeem(ctx, client, code, other, `token request with a proof by another key (${way})`);
      if (res.status !== 200 || typeof res.body.access_token !== 'string') {
        ctx.evidence.note(`dpop_jkt ${WAY_LABEL[way]}: a proof by another key was refused (${describeResponse(res)}).`);
        continue;
      }
      ignored.push(way);
      const what =
        `A code asked with dpop_jkt ${WAY_LABEL[way]} was redeemed with a DPoP proof by another key ` +
        `(${describeResponse(res)})`;
      await ctx.softly(() => {
        if (ctx.applies(ctx.req.fapi2_5_3_2_1)) {
          throw new CheckFailure(`${what}; ${ctx.req.fapi2_5_3_2_1}, and ${ctx.req.rfc9449_10}.`, {
            requirement: ctx.req.fapi2_5_3_2_1,
          });
        }
        if (way === 'pushed') {
          throw new CheckFailure(
            `${what}; the target offers PAR and DPoP: ${ctx.req.rfc9449_10_1}, and ${ctx.req.rfc9449_10}.`,
            { requirement: ctx.req.rfc9449_10_1 },
          );
        }
        if (par) {
          throw new CheckFailure(
            `${what}; ${ctx.req.rfc9449_10}; the target offers PAR and DPoP, so it supports dpop_jkt: ` +
              `${ctx.req.rfc9449_10_1}.`,
            { requirement: ctx.req.rfc9449_10 },
          );
        }
      });
    }
    // Without PAR (and outside FAPI 2.0), support of dpop_jkt is optional: ignoring it reads as not supporting it.
    if (ignored.length > 0 && !par && !ctx.applies(ctx.req.fapi2_5_3_2_1)) {
      ctx.skip(
        'the target ignored dpop_jkt (a proof by another key redeemed the code): it does not seem to support ' +
          'RFC 9449 §10, which only a server that supports PAR and DPoP must (§10.1); it advertises no PAR endpoint',
      );
    }
  },
});

/** A code asked with dpop_jkt, pushed or in the URL, with PKCE; a PreconditionError when none comes. */
async function boundCode(
  ctx: ScenarioContext,
  client: Client,
  jkt: string,
  way: Way,
): Promise<{ code: string; request: Record<string, string>; pkce: { verifier: string } }> {
  const pkce = ctx.pkce.create();
  const outcome = await ctx.authorize(
    client.role,
    { code_challenge: pkce.challenge, code_challenge_method: pkce.method, dpop_jkt: jkt },
    { par: way === 'pushed', session: 'shared' },
  );
  if (outcome.kind !== 'redirect' || !outcome.params.code) {
    throw new PreconditionError(
      `the authorization request with dpop_jkt ${WAY_LABEL[way]} as ${client.role} ${describeOutcome(outcome)}; ` +
        'a code was needed to go on',
    );
  }
  return { code: outcome.params.code, request: outcome.request, pkce };
}
