/**
 * The names of the reference's planted flaws (docs/catalog.md), each with what it breaks: the one list
 * that reference/flaws.ts switches on and that a scenario's `catches` is typed against (suites may
 * not import reference/). Not a protocol fact, but a fact both sides of the one-way imports share.
 */
import { keysOf } from './guards.ts';
export const FLAWS = {
  'discovery-issuer-mismatch': "discovery document names an issuer other than the server's own",
  'jwks-leaks-private': 'JWKS publishes private key members (d, p, q, …)',
  'state-dropped': 'the authorization response omits the state parameter',
  'code-reuse-allowed': 'an authorization code can be redeemed more than once',
  'code-reuse-keeps-tokens': 'replaying a code does not revoke the tokens it issued first',
  'code-not-bound-to-client': 'a code issued to one client can be redeemed by another',
  'code-redirect-unchecked': "the token request's redirect_uri is not compared with the one used at /auth",
  'code-redirect-loose':
    "the token request's redirect_uri is compared with the one used at /auth without its query and port",
  'code-never-expires': 'an authorization code is redeemable a day after it was issued (its lifetime is not applied)',
  'pkce-verifier-ignored': 'the code_verifier is not compared with the code_challenge',
  'pkce-verifier-optional': 'a code issued with a challenge can be redeemed without a verifier',
  'pkce-downgrade': 'a verifier is accepted for a code issued without a challenge',
  'pkce-plain-allowed': 'code_challenge_method=plain is accepted and advertised',
  'pkce-optional-for-public': 'public and third-party clients may omit the PKCE challenge',
  'pkce-verifier-format-unchecked': 'verifiers outside 43–128 unreserved characters are accepted',
  'redirect-prefix-match': 'redirect_uri is matched by prefix instead of exactly',
  'redirect-open-on-error': 'an unregistered redirect_uri receives the error redirect',
  'authorize-errors-as-page':
    'an invalid authorization request of a known client with its registered redirect_uri gets an HTTP 200 page ' +
    '(no error class) instead of the error redirect',
  'refresh-not-rotated': 'refreshing returns the same refresh token (no rotation)',
  'refresh-reuse-allowed': 'a rotated-out refresh token is still accepted',
  'refresh-family-kept': 'replaying a rotated-out refresh token does not revoke its family',
  'refresh-replay-mints-valid':
    "replaying a public client's rotated-out refresh token revokes its family, but is answered with new tokens that " +
    'stay valid',
  'refresh-unknown-accepted': 'a well-formed but unknown refresh token is accepted',
  'refresh-not-client-bound': 'a refresh token can be used by a client other than its owner',
  'refresh-scope-widen': 'a refresh request may widen the scope',
  'cc-issues-refresh': 'client_credentials issues a refresh token',
  'client-secret-unchecked': 'the client secret is not verified',
  'scope-unchecked': "requested scopes are not limited to the client's allowed set",
  'id-token-wrong-aud': 'ID tokens carry an aud other than the client_id',
  'id-token-unknown-kid': 'ID tokens carry a kid that is not in the JWKS',
  'at-hash-wrong': "the ID token's at_hash does not match the access token",
  'claims-overshare': 'ID tokens and userinfo carry claims of scopes that were not granted',
  'alg-none-accepted': 'presented tokens with alg "none" are accepted',
  'hs256-key-confusion': 'presented HS256 tokens signed with the public key as secret are accepted',
  'signature-unchecked': 'presented tokens are decoded without verifying the signature',
  'trusts-embedded-jwk': 'presented tokens are verified with a key from their own jwk/jku header',
  'device-tokens-before-approval': 'the device code grant issues tokens before the user approves',
  'device-no-slow-down': 'polling faster than the interval never gets slow_down',
  'device-denial-ignored': 'a denied device request still ends in tokens',
  'device-code-reuse': 'an approved device code can be redeemed more than once',
  'exchange-upscope': "token exchange grants scopes beyond the subject token's",
  'exchange-subject-unverified': 'token exchange accepts a subject token without verifying it',
  'implicit-issues-refresh': 'the implicit grant returns a refresh token',
  'implicit-for-every-client':
    'the implicit grant is allowed for every client, not only the ones configured for it (SPEC VER-2, SVC-4)',
  'password-issues-refresh': 'the password grant returns a refresh token',
  'no-store-missing': 'token responses lack Cache-Control: no-store',
  'token-type-missing': 'token responses omit token_type (RFC 6749 §5.1: REQUIRED)',
  'pkce-default-method-ignored':
    'a code_challenge without code_challenge_method is taken, but any code_verifier redeems the code',
  'error-format-wrong': 'token errors are not RFC 6749 §5.2 JSON bodies',
  'json-body-rejected': 'the token endpoint refuses application/json bodies',
  'revocation-noop': 'revocation answers 200 but revokes nothing',
  'introspection-always-active': 'introspection answers active:true for any token',
  'introspection-open': 'introspection answers without client authentication',
  'third-party-long-lived': 'third-party clients get lifetimes as long as (or longer than) first-party ones',
  'consent-skipped': 'third-party clients are not shown the consent page',
  'no-frame-protection': 'login, consent and activation pages may be framed',
  'race-code': 'concurrent redemptions of one code can all succeed (check-then-act)',
  'race-code-intermittent':
    'the second code redeemed by concurrent requests is not redeemed atomically (check-then-act): one race in three ' +
    'lets a double redemption through',
  'race-refresh': 'concurrent refreshes of one token can all succeed (check-then-act)',
  'race-refresh-intermittent':
    'the second refresh token used by concurrent requests is not rotated atomically (check-then-act): one race in ' +
    'three lets several refreshes through',
  // OpenID Connect Core, Discovery and RP-Initiated Logout (issue 15).
  'response-type-defaulted': 'an authorization request without response_type is treated as response_type=code',
  'authorize-get-only': 'the authorization endpoint refuses the request sent as a form POST',
  'unknown-param-rejected': 'an authorization request with a parameter the server does not know is refused',
  'scope-order-sensitive': "scopes are accepted only in the order of the client's registered scope",
  'denial-wrong-error': 'a user who denies consent is sent back with an error other than access_denied',
  'nonce-required-for-code': 'a code flow request without nonce is refused',
  'auth-time-missing': 'ID tokens carry no auth_time, even when max_age was requested',
  'prompt-none-shows-page': 'prompt=none without a session shows the login page instead of answering login_required',
  'prompt-none-ignored': 'prompt=none answers login_required even when the user has a session',
  'prompt-login-ignored': 'prompt=login reuses the session instead of asking the user to log in again',
  'max-age-ignored': 'max_age is ignored: an older session is reused without a new login',
  'id-token-hint-ignored': "id_token_hint is ignored: a code is issued for the session's user whoever the hint names",
  'userinfo-get-only': 'the userinfo endpoint refuses POST',
  'request-object-ignored': 'a request object is neither processed nor refused: the query parameters win silently',
  'claims-parameter-ignored': 'the claims request parameter is advertised but ignored',
  'discovery-field-missing': 'the discovery document lacks subject_types_supported (a REQUIRED field)',
  'rotation-drops-old-key': 'a key rotation drops the old key from the JWKS while tokens it signed are still live',
  'logout-open-redirect': 'the logout endpoint redirects to any post_logout_redirect_uri, registered or not',
  'logout-keeps-session': 'the logout endpoint redirects back but leaves the login session alive',
  'logout-hint-unverified':
    "the logout endpoint takes an id_token_hint's claims without checking its signature (alg none, any key)",
  'logout-redirect-without-hint':
    'the logout endpoint redirects to a post_logout_redirect_uri any client registered, without id_token_hint or ' +
    'client_id',
  'logout-needs-parameters':
    'a logout without id_token_hint or client_id gets an error page, and the session stays alive',
  'logout-token-has-nonce': 'the back-channel logout token carries a nonce claim, so it could pass for an ID token',
  'front-channel-no-sid':
    'the logout page loads a front-channel logout URI without the sid (and iss) a client that requires them asked for',
  // RFC 9700 (AS side), RFC 9207, RFC 8707, PAR, DPoP and private_key_jwt
  'redirect-307-after-login':
    'the redirect after the login form POST is a 307, which re-posts the credentials to the client',
  'iss-missing': 'authorization responses lack the iss parameter though discovery advertises it',
  'no-referrer-policy': 'the login and consent pages carry no Referrer-Policy',
  'low-entropy-codes': 'authorization codes carry 48 random bits (12 hex digits)',
  'resource-ignored':
    'the resource parameter is ignored: tokens keep the default audience, unknown resources are accepted',
  'par-request-uri-reuse': 'a pushed request_uri can be used more than once',
  'par-not-client-bound': 'a pushed request_uri works for a client other than the one that pushed it',
  'par-not-enforced': 'discovery says PAR is required, but a plain authorization request is accepted',
  'dpop-htu-unchecked': 'DPoP proofs at the token endpoint are accepted whatever their htm and htu',
  'dpop-refresh-not-bound': "a public client's DPoP-bound refresh token works with another key (or none)",
  'dpop-bearer-accepted': 'a DPoP-bound access token is accepted as a Bearer token',
  'dpop-jkt-unchecked': 'a code bound to a DPoP key by dpop_jkt (RFC 9449 §10) redeems with a proof by another key',
  'client-assertion-replay': "a client assertion's jti is not tracked: the same assertion authenticates again",
  'client-assertion-aud-unchecked': "a client assertion's aud is not checked",
  'cors-at-authorization-endpoint': 'the authorization endpoint answers cross-origin requests with CORS headers',
  // Dynamic client registration (RFC 7591) and its management (RFC 7592)
  'registration-redirect-uris-optional': 'a client of the authorization code grant registers without redirect_uris',
  'registration-accepts-fragment': 'a redirect URI with a fragment is registered',
  'registration-no-secret-expiry': 'a registration response issues a client_secret without client_secret_expires_at',
  'registration-drops-metadata': 'a registration response carries the credentials but not the registered metadata',
  'registration-management-open': 'reading or changing a registration works with a missing or wrong access token',
  'registration-delete-keeps-client': 'a deleted registration answers 204 but its client keeps getting tokens',
  'registration-client-unusable': 'the authorization endpoint does not know registered clients',
  // JWT access tokens (RFC 9068), step-up (RFC 9470) and signed request objects (RFC 9101)
  'at-jwt-wrong-typ': 'JWT access tokens carry typ JWT instead of at+jwt',
  'acr-ignored': 'acr_values and an essential acr claim are ignored: ID tokens carry no acr',
  'request-object-signature-unchecked': "a request object's signature is not verified (alg none and any key pass)",
  // OIDC Core §3.2 and §3.3 (implicit and hybrid flows), OAuth 2.0 Form Post Response Mode
  'implicit-nonce-optional': 'an implicit or hybrid request without nonce is accepted',
  'hybrid-c-hash-missing': 'the ID token of a hybrid response (code and id_token) carries no c_hash',
  'hybrid-at-hash-wrong':
    'the ID token issued with an access token at the authorization endpoint carries a wrong at_hash',
  'hybrid-token-sub-differs':
    "the token endpoint's ID token for a code of a hybrid response carries another sub (a pairwise-like value)",
  'form-post-in-query': "response_mode=form_post puts the response parameters in the form action's query",
  'form-post-not-submitting': 'the form_post page never submits its form (its onload handler sits on a <div>)',
  'implicit-params-in-query':
    'the response parameters (and errors) of a type returning a token or ID token come in the query, not the fragment',
  'form-post-ignored-for-implicit':
    'response_mode=form_post is ignored for response types other than code: tokens come in a fragment redirect',
  // MCP authorization (serve --mcp): metadata, Client ID Metadata Documents, RFC 8707 in the code flow, RFC 9728
  'as-metadata-text-plain': 'the authorization server metadata is served as text/plain instead of application/json',
  'cimd-client-id-unchecked': 'a client metadata document whose client_id differs from its URL is accepted',
  'cimd-redirect-unchecked': 'a redirect_uri absent from the client metadata document is accepted and redirected to',
  'cimd-bad-document-accepted':
    'a client metadata document that is not JSON, lacks required fields or is too large is accepted (or answers 500)',
  'resource-ignored-in-code-flow':
    'the resource parameter is ignored in the authorization code and refresh grants: tokens keep the default ' +
    'audience, unknown resources are accepted, a refresh may widen it',
  'prm-resource-mismatch': "the protected resource metadata's resource differs from the resource's URL",
  'prm-challenge-without-metadata': "the protected resource's 401 challenge carries no resource_metadata",
  'rs-audience-unchecked': 'the protected resource accepts a valid token issued for another resource',
  'rs-query-token-accepted': 'the protected resource accepts an access token in the URI query string',
  'registration-http-redirect-accepted': 'registration accepts an http redirect URI that is not loopback',
  // Attacks other testing tools make (issue 45): the HTTP method, where credentials go, repeated parameters
  'token-accepts-get': 'the token endpoint answers a GET, its parameters in the query string, as it would a POST',
  'client-secret-in-query-accepted':
    'client_id and client_secret in the token request URI are taken as client authentication (not refused)',
  'authorize-duplicate-params-accepted':
    'an authorization request with a parameter included twice is processed (the first value wins), not refused',
  'par-accepts-get': 'the PAR endpoint answers a GET, its parameters in the query string, as it would a POST',
  'par-duplicate-params-accepted':
    'a pushed authorization request with a parameter included twice is accepted (the first value wins)',
  // issue 45: the attacks other testing tools make
  'revocation-not-client-bound': 'the revocation endpoint revokes a token issued to another client than the caller',
  'revocation-keeps-access': 'revoking a refresh token leaves the access tokens of its grant valid',
  'host-header-trusted':
    "the issuer, and every URL built on it (metadata, redirects), follows the request's X-Forwarded-Host or Host",
  'device-code-low-entropy': 'device codes are a counter in eight digits (guessable)',
  'client-assertion-times-unchecked':
    'a client assertion without sub, with nbf in the future, or issued long ago (exp still valid) is accepted',
  'fapi2-accepts-rs256':
    'under the fapi2 profile, client assertions and request objects signed with RS256 are still accepted',
  'request-object-long-lived':
    'under the fapi2 profile, a request object living over 60 minutes (exp − nbf) or without nbf is accepted',
  'jarm-unsigned': 'a JARM authorization response (response_mode=jwt) is a JWT with alg none and no signature',
} as const;

export type FlawName = keyof typeof FLAWS;

export const FLAW_NAMES: FlawName[] = keysOf(FLAWS);

export function isFlawName(name: string): name is FlawName {
  return Object.hasOwn(FLAWS, name);
}
