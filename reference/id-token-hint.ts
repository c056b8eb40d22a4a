/**
 * An ID token of ours presented back as a hint: id_token_hint at the authorization endpoint
 * (OIDC Core §3.1.2.1) and at the logout endpoint (OIDC RP-Initiated Logout §2). Only the
 * signature (one of our keys, by kid, with its own alg) and the issuer are checked: an expired
 * ID token is still a good hint of who the user was.
 */
import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose';
import type { ServerContext } from './context.ts';
import { JSON_OBJECT } from './json.ts';

export interface IdTokenHint {
  sub: string;
  /** The clients it was issued to. */
  aud: string[];
}

/** The hint's user and audience, or undefined when it is not an ID token this server signed. */
export async function readIdTokenHint(
  server: Pick<ServerContext, 'issuer' | 'keys'>,
  token: string,
  { unverified = false }: { unverified?: boolean } = {},
): Promise<IdTokenHint | undefined> {
  try {
    // `unverified`: flaw logout-hint-unverified only (the claims decoded, the signature never checked).
    const claims = unverified ? decodeJwt(token) : await verifiedClaims(server, token);
    if (!claims) return undefined;
    const aud =
      typeof claims.aud === 'string'
        ? [claims.aud]
        : Array.isArray(claims.aud)
          ? claims.aud.filter((a): a is string => typeof a === 'string')
          : [];
    if (claims.iss !== server.issuer || typeof claims.sub !== 'string' || aud.length === 0) return undefined;
    return { sub: claims.sub, aud };
  } catch {
    return undefined;
  }
}

async function verifiedClaims(
  server: Pick<ServerContext, 'keys'>,
  token: string,
): Promise<Record<string, unknown> | undefined> {
  const header = decodeProtectedHeader(token);
  const key = typeof header.kid === 'string' ? server.keys.find(header.kid) : undefined;
  if (!key || key.alg !== header.alg) return undefined;
  const { payload } = await compactVerify(token, key.publicKey, { algorithms: [key.alg] });
  return JSON_OBJECT.parse(JSON.parse(new TextDecoder().decode(payload)));
}
