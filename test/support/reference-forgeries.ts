/** The FORGERIES of forge-jwt.ts made against one running reference server. */
import { SignJWT, type JWK } from 'jose';
import { forgeries, type ForgeryName } from './forge-jwt.ts';
import { codeFlowTokens, type RunningReference, type Tokens } from './reference.ts';

export interface ForgeryFixture {
  tokens: Tokens;
  forged: Record<ForgeryName, string>;
}

export async function forgeAgainst(ref: RunningReference): Promise<ForgeryFixture> {
  const tokens = await codeFlowTokens(ref);
  if (tokens.id_token === undefined) throw new Error('the code flow returned no ID token');
  const jwks = (await (await fetch(ref.url('/jwks'))).json()) as { keys: JWK[] };
  const key = ref.server.context.keys.current;
  const forged = await forgeries({
    accessToken: tokens.access_token,
    idToken: tokens.id_token,
    jwks,
    signAsServer: (payload) =>
      new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' }).sign(key.privateKey),
  });
  return { tokens, forged };
}
