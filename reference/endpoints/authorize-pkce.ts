/** The authorization request's PKCE parameters (RFC 7636 §4.3), as GET /auth and PAR check them. */
import type { ServerContext } from '../context.ts';
import type { Params } from '../http/body.ts';
import { invalidRequest } from '../oauth-error.ts';
import type { RegisteredClient } from '../options.ts';
import { S256_CHALLENGE_FORMAT, VERIFIER_FORMAT } from '../pkce.ts';
import type { PkceMethod } from '../store/store.ts';

/** RFC 7636 §4.3 and RFC 9700 §2.1.1: S256 only; required for public and third-party clients (all: pkce-required). */
export function checkPkce(
  server: ServerContext,
  client: RegisteredClient,
  params: Params,
): { codeChallenge?: string; codeChallengeMethod?: PkceMethod } {
  const { flaws } = server;
  const challenge = params.code_challenge;
  if (challenge === undefined) {
    if (params.code_challenge_method !== undefined)
      throw invalidRequest('code_challenge_method without code_challenge');
    // The pkce-required variant asks it of every client, confidential first-party ones too (RFC 9700 §2.1.1).
    const required = client.clientSecret === undefined || !client.firstParty || server.variants.has('pkce-required');
    if (required && !flaws.has('pkce-optional-for-public'))
      throw invalidRequest('code_challenge is required for this client (PKCE, S256)');
    return {};
  }
  // RFC 7636 §4.3: an absent method means plain. The flaw takes such a challenge and never checks it (grants/).
  if (params.code_challenge_method === undefined && flaws.has('pkce-default-method-ignored'))
    return { codeChallenge: challenge, codeChallengeMethod: 'plain' };
  const method = params.code_challenge_method ?? 'plain';
  if (method === 'plain' && flaws.has('pkce-plain-allowed')) {
    if (!VERIFIER_FORMAT.test(challenge)) throw invalidRequest('code_challenge is malformed');
    return { codeChallenge: challenge, codeChallengeMethod: 'plain' };
  }
  if (method !== 'S256') throw invalidRequest('code_challenge_method must be S256');
  if (!S256_CHALLENGE_FORMAT.test(challenge)) throw invalidRequest('code_challenge is not a base64url SHA-256 value');
  return { codeChallenge: challenge, codeChallengeMethod: 'S256' };
}
