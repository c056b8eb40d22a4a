import { CheckFailure, PreconditionError, defineScenario, describeOutcome } from '../../harness/scenario/scenario.ts';
import { JARM_RESPONSE_PARAMETER } from '../../protocol/jarm.ts';
import { ASYMMETRIC_ALGS } from '../../protocol/jws.ts';
import { codeFlowClient, dpopAlgs, dpopKey, redeem, tokensOf } from '../checks/index.ts';

/** Seconds of clock skew tolerated on exp. */
const SKEW = 60;

export default defineScenario({
  id: 'jarm.signed-response',
  title:
    'response_mode=jwt answers with one JWT, the response parameter, signed by a key of the JWKS and carrying iss, ' +
    'aud and exp beside the code and state; the code it carries is redeemed',
  requirements: {
    jarm_2_1: {
      spec: 'JARM',
      section: '2.1',
      level: 'MUST',
      party: 'server',
      note: 'the JWT always contains iss, aud (the client_id) and exp, each REQUIRED, with the response parameters',
    },
    jarm_2_2: {
      spec: 'JARM',
      section: '2.2',
      level: 'MUST',
      party: 'server',
      note:
        'the JWT is either signed, or signed and encrypted (the mode itself, no keyword: a JWT with alg none is ' +
        'neither)',
    },
    // "The client MUST ... validate the signature": the client's duty, cited for what an unsigned JWT breaks.
    jarm_2_4: {
      spec: 'JARM',
      section: '2.4',
      level: 'MUST',
      party: 'client',
      note: 'the client validates the signature by the JWKS of the expected issuer, and iss, aud and exp',
    },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['keyed', 'confidential', 'public', 'confidential2'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  catches: ['jarm-unsigned', 'state-dropped'],
  async run(ctx) {
    const modes = ctx.target.discovery?.response_modes_supported;
    if (!Array.isArray(modes))
      return ctx.skip('the target publishes no response_modes_supported (no discovery document listing jwt)');
    const mode = modes.includes('jwt') ? 'jwt' : modes.includes('query.jwt') ? 'query.jwt' : undefined;
    if (mode === undefined)
      return ctx.skip('response_modes_supported lists neither jwt nor query.jwt: the target does not offer JARM');
    const client = codeFlowClient(ctx) ?? ctx.skip('needs a code-flow client with a redirect URI');
    if (!ctx.target.endpoints.jwks)
      throw new PreconditionError('the target offers JARM but names no jwks_uri: its signature cannot be checked');
    const pkce = ctx.pkce.create();
    const outcome = await ctx.authorize(
      client.role,
      { response_mode: mode, code_challenge: pkce.challenge, code_challenge_method: pkce.method },
      { session: 'shared' },
    );
    const when = `The authorization response to a code request with response_mode=${mode}`;
    if (outcome.kind !== 'redirect')
      throw new PreconditionError(
        `the code request with response_mode=${mode} ${describeOutcome(outcome)}: no response reached the redirect URI`,
      );
    const jwt = outcome.params[JARM_RESPONSE_PARAMETER];
    const bare = Object.keys(outcome.params).filter((name) => name !== JARM_RESPONSE_PARAMETER);
    if (jwt === undefined)
      throw new CheckFailure(
        `${when} carried no response parameter (parameters: ${bare.join(', ') || 'none'}); ${ctx.req.jarm_2_1}: ` +
          'the response parameters travel in one JWT, the response parameter (JARM §2.3).',
        { requirement: ctx.req.jarm_2_1 },
      );
    if (bare.includes('code') || bare.includes('error'))
      await ctx.softly(() => {
        throw new CheckFailure(
          `${when} carried ${bare.join(', ')} beside the response JWT, unsigned; ${ctx.req.jarm_2_1}: every ` +
            'response parameter travels inside the JWT.',
          { requirement: ctx.req.jarm_2_1 },
        );
      });
    const { header, payload } = ctx.jwt.decode(jwt);
    const unverified = await ctx.jwt.jwksVerifies(jwt, ASYMMETRIC_ALGS);
    if (unverified !== undefined)
      await ctx.softly(() => {
        throw new CheckFailure(
          `${when} was a JWT with alg ${JSON.stringify(header.alg)} that the target's JWKS does not verify ` +
            `(${unverified}); ${ctx.req.jarm_2_2}, and ${ctx.req.jarm_2_4}: a client must refuse it.`,
          { requirement: ctx.req.jarm_2_2 },
        );
      });
    const wrong: string[] = [];
    if (payload.iss !== ctx.target.issuer)
      wrong.push(`iss ${payload.iss === undefined ? 'absent' : `${JSON.stringify(payload.iss)}`}, not the issuer`);
    const aud = payload.aud;
    if (!(aud === client.clientId || (Array.isArray(aud) && aud.includes(client.clientId))))
      wrong.push(`aud ${aud === undefined ? 'absent' : JSON.stringify(aud)}, not the client_id`);
    if (typeof payload.exp !== 'number') wrong.push('exp absent');
    else if (payload.exp < Date.now() / 1000 - SKEW) wrong.push(`exp ${payload.exp} already past`);
    const state = outcome.request.state;
    if (state !== undefined && payload.state !== state) wrong.push('state not the one the request sent');
    if (wrong.length > 0)
      await ctx.softly(() => {
        throw new CheckFailure(`${when} was a JWT with ${wrong.join('; ')}; ${ctx.req.jarm_2_1}.`, {
          requirement: ctx.req.jarm_2_1,
        });
      });
    const code = payload.code;
    if (typeof code !== 'string')
      throw new PreconditionError(
        `${when} carried no code in its JWT${typeof payload.error === 'string' ? ` (error=${payload.error})` : ''}: ` +
          'the code it should carry could not be redeemed',
      );
    // The control: the code the JWT carries is the client's, and redeems; with a DPoP proof wherever DPoP is
    // advertised (RFC 9449 §5.1), so that a server requiring it (FAPI 2.0 settings, any profile) answers.
    const key = dpopAlgs(ctx) === undefined ? undefined : dpopKey(ctx);
    const res = await redeem(ctx, client, { code, request: outcome.request, pkce }, key, 'token request (JARM code)');
    tokensOf(res, `redeeming the code of the ${mode} response as ${client.role}`);
    ctx.evidence.note(
      `${when} was one JWT (alg ${String(header.alg)}, kid ${JSON.stringify(header.kid)}) carrying iss, aud, exp, ` +
        'state and a code the token endpoint redeemed.',
    );
  },
});
