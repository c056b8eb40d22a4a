/**
 * Issue 40 cause 1, exactly as reported: a scenario (loaded with --scenarios) that signs in, then sends prompt=none
 * with the ID token as id_token_hint inside a request object the harness signs (tokens/request-object.ts). It judges
 * nothing of its own: a note says what came back.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Client } from '../../../harness/config/load.ts';
import { defineScenario, describeOutcome, requestObject } from '../../../harness/scenario/scenario.ts';

export default defineScenario({
  id: 'hostile.hint-in-request-object',
  title: "prompt=none with the signed-in user's ID token as id_token_hint inside a signed request object",
  requirements: {
    oidcCore_6_1: { spec: 'OIDC Core', section: '6.1', level: 'MUST', party: 'server', note: 'a request object' },
  },
  severity: 'low',
  requires: { roles: ['confidential'], user: true },
  async run(ctx) {
    const client = ctx.client('confidential');
    const session = ctx.loginSession();
    const { tokens } = await ctx.flows.tokens('confidential', {
      scope: 'openid',
      session,
      params: { nonce: ctx.random() },
    });
    const idToken = String(tokens.id_token);
    const privateJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const keyed = { ...client, privateJwk: { ...privateJwk, kid: 'hostile-1' } } as Client;
    const pkce = ctx.pkce.create();
    const parameters = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: String(client.redirectUri),
      scope: 'openid',
      prompt: 'none',
      id_token_hint: idToken,
      state: ctx.random(8),
      nonce: ctx.random(),
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    };
    const outcome = await ctx.authorize(
      'confidential',
      { scope: 'openid', request: requestObject(keyed, parameters, { audience: ctx.target.issuer }) },
      { session, interact: false },
    );
    ctx.evidence.note(
      `The prompt=none request object with the ID token as id_token_hint: ${describeOutcome(outcome)}.`,
    );
  },
});
