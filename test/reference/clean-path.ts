/**
 * The clean path: what a well-behaved client of the reference sees, as named checks. Every
 * check holds on a server without flaws; a server with one flaw on must fail exactly the checks
 * that flaw names in DEVIATIONS (usually none), which is how the flaw tests show that a flaw
 * changes its own behaviour and breaks nothing else. Run with `legacyClient: true`.
 */
import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { LEGACY_CLIENT, SEEDED_USER, type FlawName } from '../../reference/index.ts';
import { MACHINE, SPA, WEB, type ReferenceClient } from '../support/reference-client.ts';

export const CLEAN_CHECKS = [
  'discoveryIssuer', // discovery issuer equals the server's
  'pkceS256Only', // only S256 advertised
  'jwksPublic', // no private JWK members
  'loginFramingDenied', // X-Frame-Options DENY and frame-ancestors 'none' on the login page
  'stateEchoed', // the code redirect carries the state
  'codeRedeemed', // the code gives Bearer access, ID and refresh tokens
  'tokenNoStore', // token responses carry Cache-Control: no-store
  'accessTokenValid', // the access token verifies against the JWKS
  'idTokenValid', // every ID token (code, password, implicit) verifies: aud, kid, nonce, at_hash
  'idTokenClaimsScoped', // only the claims of the granted scopes
  'refreshRotated', // refresh gives a new refresh token and a new access token
  'consentShown', // the third-party client sees the consent page
  'thirdPartyFlow', // and gets its tokens
  'thirdPartyShort', // with a shorter access token lifetime than first-party
  'ccIssued', // client_credentials gives an access token
  'ccNoRefresh', // and no refresh token
  'jsonBody', // the token endpoint takes a JSON body
  'errorFormat', // a bad token request gets an RFC 6749 §5.2 JSON error
  'passwordIssued', // the legacy client's password grant gives tokens
  'passwordNoRefresh', // and no refresh token
  'implicitIssued', // the legacy client's implicit request gives tokens in the fragment
  'implicitNoRefresh', // and no refresh token
] as const;

export type CleanCheck = (typeof CLEAN_CHECKS)[number];

/** The clean checks a flaw changes by design; every flaw not named here changes none. */
export const DEVIATIONS: Partial<Record<FlawName, CleanCheck[]>> = {
  'discovery-issuer-mismatch': ['discoveryIssuer'],
  'pkce-plain-allowed': ['pkceS256Only'],
  'jwks-leaks-private': ['jwksPublic'],
  'no-frame-protection': ['loginFramingDenied'],
  'state-dropped': ['stateEchoed'],
  'no-store-missing': ['tokenNoStore'],
  'token-type-missing': ['codeRedeemed', 'implicitIssued'],
  'id-token-wrong-aud': ['idTokenValid'],
  'id-token-unknown-kid': ['idTokenValid'],
  'at-hash-wrong': ['idTokenValid'],
  'hybrid-at-hash-wrong': ['idTokenValid'], // the implicit ID token's at_hash
  'claims-overshare': ['idTokenClaimsScoped'],
  'refresh-not-rotated': ['refreshRotated'],
  'consent-skipped': ['consentShown'],
  'third-party-long-lived': ['thirdPartyShort'],
  'cc-issues-refresh': ['ccNoRefresh'],
  'json-body-rejected': ['jsonBody'],
  'error-format-wrong': ['errorFormat'],
  'password-issues-refresh': ['passwordNoRefresh'],
  'implicit-issues-refresh': ['implicitNoRefresh'],
  'implicit-params-in-query': ['implicitIssued'], // the implicit tokens come in the query, not the fragment
  'at-jwt-wrong-typ': ['accessTokenValid'],
};

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/** at_hash for the ES256 keys the tests run with (OIDC Core §3.1.3.6). */
const atHash = (token: string) => createHash('sha256').update(token).digest().subarray(0, 16).toString('base64url');

/** Runs the clean path and answers the names of the checks that did not hold. */
export async function failedCleanChecks(idp: ReferenceClient): Promise<CleanCheck[]> {
  const checks = {} as Record<CleanCheck, boolean>;
  const discovery = await idp.json('/.well-known/openid-configuration');
  checks.discoveryIssuer = discovery.issuer === idp.issuer;
  checks.pkceS256Only = JSON.stringify(discovery.code_challenge_methods_supported) === '["S256"]';
  const jwks = (await idp.json('/jwks')) as unknown as JSONWebKeySet;
  checks.jwksPublic = jwks.keys.every((key) => PRIVATE_MEMBERS.every((member) => !(member in key)));
  // Verification uses the public members only, so that a leaked private member changes nothing else.
  const keySet = createLocalJWKSet({
    keys: jwks.keys.map((key) =>
      Object.fromEntries(Object.entries(key).filter(([member]) => !PRIVATE_MEMBERS.includes(member))),
    ),
  });
  const idTokenValid = (token: unknown, clientId: string, accessToken: unknown, nonce?: string) =>
    jwtVerify(String(token), keySet, { issuer: idp.issuer, audience: clientId }).then(
      ({ payload }) => payload.nonce === nonce && payload.at_hash === atHash(String(accessToken)),
      () => false,
    );

  const loginQuery = new URLSearchParams({
    client_id: WEB.clientId,
    redirect_uri: WEB.redirectUris[0]!,
    response_type: 'code',
    scope: 'openid',
    code_challenge: 'x'.repeat(43),
    code_challenge_method: 'S256',
  });
  const login = await idp.get(`/auth?${loginQuery}`);
  checks.loginFramingDenied =
    login.headers.get('x-frame-options') === 'DENY' &&
    /frame-ancestors 'none'/.test(login.headers.get('content-security-policy') ?? '');

  const { code, verifier, result } = await idp.authorizeCode(WEB, {
    scope: 'openid profile offline_access',
    state: 'st-1',
    nonce: 'n-1',
  });
  checks.stateEchoed = result.params.get('state') === 'st-1';
  const redeemed = await idp.redeem(code, WEB, { code_verifier: verifier });
  const tokens = redeemed.body;
  checks.codeRedeemed =
    redeemed.status === 200 &&
    tokens.token_type === 'Bearer' &&
    [tokens.access_token, tokens.id_token, tokens.refresh_token].every((t) => typeof t === 'string');
  checks.tokenNoStore = redeemed.headers.get('cache-control') === 'no-store';
  checks.accessTokenValid = await jwtVerify(String(tokens.access_token), keySet, {
    issuer: idp.issuer,
    typ: 'at+jwt',
  }).then(
    () => true,
    () => false,
  );
  let idTokensValid = await idTokenValid(tokens.id_token, WEB.clientId, tokens.access_token, 'n-1');
  const idClaims = typeof tokens.id_token === 'string' ? decodeJwt(tokens.id_token) : {};
  checks.idTokenClaimsScoped =
    idClaims.name === SEEDED_USER.claims.name && !('email' in idClaims) && !('phone_number' in idClaims);

  const refreshed = await idp.refresh(String(tokens.refresh_token), WEB);
  checks.refreshRotated =
    refreshed.status === 200 &&
    typeof refreshed.body.refresh_token === 'string' &&
    refreshed.body.refresh_token !== tokens.refresh_token &&
    refreshed.body.access_token !== tokens.access_token;

  const spa = await idp.authorizeCode(SPA, { scope: 'openid' });
  checks.consentShown = spa.result.consentShown;
  const spaTokens = await idp.redeem(spa.code, SPA, { code_verifier: spa.verifier });
  checks.thirdPartyFlow = spaTokens.status === 200 && typeof spaTokens.body.access_token === 'string';
  checks.thirdPartyShort = Number(spaTokens.body.expires_in) < Number(tokens.expires_in);

  const cc = await idp.token({ grant_type: 'client_credentials' }, { client: MACHINE });
  checks.ccIssued = cc.status === 200 && typeof cc.body.access_token === 'string';
  checks.ccNoRefresh = !('refresh_token' in cc.body);
  const ccJson = await idp.token({ grant_type: 'client_credentials' }, { client: MACHINE, json: true });
  checks.jsonBody = ccJson.status === 200;
  const bad = await idp.token({ grant_type: 'authorization_code' }, { client: WEB });
  checks.errorFormat =
    bad.status === 400 && bad.body.error === 'invalid_request' && typeof bad.body.error_description === 'string';

  const password = await idp.token(
    { grant_type: 'password', username: SEEDED_USER.username, password: SEEDED_USER.password, scope: 'openid' },
    { client: LEGACY_CLIENT },
  );
  checks.passwordIssued = password.status === 200 && typeof password.body.access_token === 'string';
  checks.passwordNoRefresh = !('refresh_token' in password.body);
  idTokensValid &&= await idTokenValid(password.body.id_token, LEGACY_CLIENT.clientId, password.body.access_token);

  const implicit = await idp.authorize({
    client: LEGACY_CLIENT,
    query: { response_type: 'id_token token', scope: 'openid', nonce: 'n-2', state: 'st-2' },
  });
  const fragment = implicit.params;
  checks.implicitIssued =
    implicit.callback?.hash !== '' && fragment.get('token_type') === 'Bearer' && fragment.has('access_token');
  checks.implicitNoRefresh = !fragment.has('refresh_token');
  idTokensValid &&= await idTokenValid(
    fragment.get('id_token'),
    LEGACY_CLIENT.clientId,
    fragment.get('access_token'),
    'n-2',
  );
  checks.idTokenValid = idTokensValid;

  return CLEAN_CHECKS.filter((name) => !checks[name]);
}
