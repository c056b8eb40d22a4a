import {
  CheckFailure,
  type DpopKey,
  type HttpResponse,
  createDpopKey,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { codeFlowClient, describeResponse, dpopAlgs, dpopKey, redeem, tokensOf } from '../checks/index.ts';

/** `per` names the requirement (ctx.req) the refusal is owed to. */
interface Bad {
  name: string;
  proof(key: DpopKey, url: string): string;
  per: 'rfc9449_4_3' | 'rfc9449_11_1';
}

const BAD_PROOFS: readonly Bad[] = [
  { name: 'htm GET instead of POST', proof: (key, url) => key.proof('GET', url), per: 'rfc9449_4_3' },
  {
    name: 'an htu of another URL',
    proof: (key, url) => key.proof('POST', new URL('/idpc-elsewhere/token', url).href),
    per: 'rfc9449_4_3',
  },
  {
    name: 'an iat an hour old',
    proof: (key, url) => key.proof('POST', url, { iatOffset: -3600 }),
    per: 'rfc9449_11_1',
  },
  { name: 'alg none', proof: (key, url) => key.proof('POST', url, { alg: 'none' }), per: 'rfc9449_4_3' },
];

function accepted(res: HttpResponse): boolean {
  return res.status === 200 && typeof res.body.access_token === 'string';
}

export default defineScenario({
  id: 'dpop.proof-checked',
  title:
    'The token endpoint refuses DPoP proofs with a wrong htm or htu, a stale iat, alg none or a signature by ' +
    'another key',
  requirements: {
    rfc9449_4_3: {
      spec: 'RFC 9449',
      section: '4.3',
      level: 'MUST',
      party: 'server',
      note: 'the proof is checked: typ, alg (never none), signature by its jwk, htm, htu',
    },
    rfc9449_11_1: {
      spec: 'RFC 9449',
      section: '11.1',
      level: 'MUST',
      party: 'server',
      note: 'proofs are accepted only for a limited time after iat',
    },
    fapi2_5_3_2_1: {
      spec: 'FAPI 2.0 SP',
      section: '5.3.2.1',
      level: 'MUST',
      party: 'server',
      note: 'sender-constrained access tokens with DPoP',
    },
  },
  severity: 'critical',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['dpop-htu-unchecked'],
  timeoutMs: 60_000,
  async run(ctx) {
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    const key = dpopKey(ctx);
    const url = ctx.target.endpoints.token!;
    const other = createDpopKey(dpopAlgs(ctx));
    const variants: Bad[] = [
      ...BAD_PROOFS,
      {
        name: 'a signature by another key than its jwk',
        proof: (k, u) => k.proof('POST', u, { signWith: other }),
        per: 'rfc9449_4_3',
      },
    ];
    let code = await ctx.flows.code(client.role);
    for (const bad of variants) {
      const res = await ctx.http.token(
        client,
        {
          grant_type: 'authorization_code',
          code: code.code,
          redirect_uri: code.request.redirect_uri,
          code_verifier: code.pkce?.verifier,
        },
        { label: `token request with a DPoP proof with ${bad.name}`, headers: { dpop: bad.proof(key, url) } },
      );
      if (accepted(res)) {
        await ctx.softly(() => {
          throw new CheckFailure(
            `A token request with a DPoP proof with ${bad.name} got ${describeResponse(res)}; ${ctx.req[bad.per]} ` +
              `requires such a proof to be refused.`,
            { requirement: ctx.req[bad.per] },
          );
        });
        code = await ctx.flows.code(client.role); // that code is spent
      } else if (res.body.error !== 'invalid_dpop_proof') {
        ctx.evidence.note(
          `With ${bad.name}: ${describeResponse(res)} (RFC 9449 §5 names invalid_dpop_proof for a bad proof).`,
        );
      }
    }
    // The refusals were about the proofs: the same code redeems with a sound one (a fresh code if the server spent it).
    let good = await redeem(ctx, client, code, key, 'token request with a sound DPoP proof');
    if (!accepted(good))
      good = await redeem(
        ctx,
        client,
        await ctx.flows.code(client.role),
        key,
        'token request with a sound DPoP proof (fresh code)',
      );
    tokensOf(good, 'redeeming a code with a sound DPoP proof');
    // RFC 9449 §11.1 lets a server remember jti values; it does not require it: a note either way.
    const proof = key.proof('POST', url);
    const use = async (label: string) => {
      const c = await ctx.flows.code(client.role);
      return ctx.http.token(
        client,
        {
          grant_type: 'authorization_code',
          code: c.code,
          redirect_uri: c.request.redirect_uri,
          code_verifier: c.pkce?.verifier,
        },
        { label, headers: { dpop: proof } },
      );
    };
    const once = await use('token request with a DPoP proof (its first use)');
    const twice = await use('token request with the same DPoP proof (its jti reused)');
    ctx.evidence.note(
      `The same proof on two token requests: ${describeResponse(once)}, ` +
        `then ${describeResponse(twice)}` +
        `${accepted(twice) ? ' — this server does not track jti values (RFC 9449 §11.1 allows that)' : ''}.`,
      'jti reuse (not judged)',
    );
  },
});
