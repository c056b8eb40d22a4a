/**
 * JWT Secured Authorization Response Mode for OAuth 2.0 (JARM, OpenID Final, November 2022): the response modes that
 * carry the authorization response as one JWT, the parameter that carries it, and the claims it always holds.
 */

/** JARM §2.3.1–§2.3.3: the JWT in the query, the fragment, or a form POSTed to the redirect URI. */
export const JARM_ENCODED_MODES = ['query.jwt', 'fragment.jwt', 'form_post.jwt'] as const;
export type JarmEncodedMode = (typeof JARM_ENCODED_MODES)[number];

/** JARM §2.3.4: `jwt` is query.jwt for response type code, fragment.jwt for a response type that carries a token. */
export const JARM_DEFAULT_MODE = 'jwt';

/** Every JARM response mode name (a server that offers JARM lists them in response_modes_supported, JARM §4). */
export const JARM_RESPONSE_MODES: readonly string[] = [JARM_DEFAULT_MODE, ...JARM_ENCODED_MODES];

/** JARM §2.3: the one parameter the JWT travels in. */
export const JARM_RESPONSE_PARAMETER = 'response';

/** JARM §2.1: the claims the JWT always carries (REQUIRED), beside the response parameters. */
export const JARM_REQUIRED_CLAIMS = ['iss', 'aud', 'exp'] as const;

/** JARM §4: the server metadata naming the algs it signs authorization responses with. */
export const JARM_SIGNING_ALGS_METADATA = 'authorization_signing_alg_values_supported';

/** The JARM mode a request's response_mode names, if any (`jwt` resolved by the response type: JARM §2.3.4). */
export function jarmModeOf(asked: string | undefined, carriesToken: boolean): JarmEncodedMode | undefined {
  if (asked === JARM_DEFAULT_MODE) return carriesToken ? 'fragment.jwt' : 'query.jwt';
  return JARM_ENCODED_MODES.find((mode) => mode === asked);
}
