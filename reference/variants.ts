/**
 * The variants registry (docs/fixture.md, "Variants"): behaviours the specifications allow and real products
 * document, each one switch (`serve --variant NAME`, `createReferenceServer({ variants: [...] })`). A variant is
 * never a flaw: the catalog gives the same status for every scenario with it on as without it
 * (test/matrix/variants.test.ts), and every planted flaw is still caught under it. Each names the public
 * documentation of a real product (or the specification sentence) that behaves so.
 */
import { Switches } from './switches.ts';

export interface VariantInfo {
  /** What the reference does differently with the variant on. */
  readonly does: string;
  /** Where a real product documents the behaviour, or the sentence that allows it. */
  readonly source: string;
}

export const VARIANTS = {
  'revoke-previous-grant': {
    does:
      "a completed authorization (a code issued) revokes the tokens, access and refresh, of the user's earlier grant " +
      'for that client, and any its code has yet to issue',
    source:
      'Doorkeeper (Ruby OAuth framework) revoke_previous_authorization_code_token; Cloudflare workers-oauth-provider ' +
      'completeAuthorization revokes existing grants for the user and client by default',
  },
  'single-session': {
    does: "a sign-in ends the user's other sessions (their cookies no longer sign in; prompt=none gets login_required)",
    source:
      'Keycloak "User session count limiter" authenticator (maximum 1 session per user, behaviour: terminate ' +
      'oldest session)',
  },
  'two-step-login': {
    does:
      'the user name on one page, the password on the next (identifier first), on the login and device activation ' +
      'pages',
    source:
      'Auth0 Universal Login "Identifier First"; Okta Identity Engine identifier-first sign-in; Keycloak browser ' +
      'flow with "Username Form" then "Password Form"; Microsoft Entra ID sign-in',
  },
  'locale-de': {
    does:
      'every page, label and button in German (login, consent, error, activation, logout, form_post); OAuth error ' +
      'codes and scope names as the protocol spells them',
    source: 'Keycloak realm internationalization (default locale de); Auth0 Universal Login localization',
  },
  'csrf-forms': {
    does:
      'the login and consent forms carry a CSRF token bound to a cookie (double submit); a POST without both, or ' +
      'with different values, is refused with an error page (HTTP 403)',
    source:
      'Ory Hydra/Kratos csrf_token form field with its cookie; Spring Security _csrf on the login and consent ' +
      'forms (Spring Authorization Server); Django csrfmiddlewaretoken (django-oauth-toolkit)',
  },
  'remember-consent': {
    does:
      'consent given once is not asked again for that user, client and scope (in any later session); a wider ' +
      'scope, or prompt=consent (OIDC Core §3.1.2.1), asks again',
    source:
      'Ory Hydra consent "remember": true; Spring Authorization Server OAuth2AuthorizationConsentService; ' +
      'Keycloak stored consents (user account, "Applications")',
  },
  'form-post-script': {
    does:
      'the form_post page submits its form by a script on DOMContentLoaded, with no onload attribute (the plain ' +
      'reference: <body onload>)',
    source:
      'oidc-provider formPost (a <script> that submits the form on DOMContentLoaded); the plain reference is ' +
      "MITREid Connect's form_post.jsp (<body onload>); OAuth 2.0 Form Post Response Mode §2 leaves the means " +
      'of auto-submission to the server',
  },
  'pkce-required': {
    does: 'PKCE for every client, confidential first-party ones too: a code request without code_challenge is refused',
    source:
      'OAuth 2.1 draft §4.1.1 and RFC 9700 §2.1.1; Keycloak client "Proof Key for Code Exchange" setting; ' +
      'Spring Authorization Server ClientSettings.requireProofKey; Ory Hydra oauth2.pkce.enforced',
  },
  'lowercase-bearer': {
    does: 'token_type "bearer" in token responses (RFC 6749 §5.1: case insensitive)',
    source:
      'Ory Hydra answers token_type "bearer" (ory/hydra issue 1934 shows its token response); Keycloak keeps a ' +
      'lower-case "bearer" option for older clients (keycloak/keycloak pull request 9538)',
  },
  slow: {
    does: 'about 250 ms added to every response (`slowMs`)',
    source:
      'a hosted IdP (Auth0, Okta, Microsoft Entra ID) or a staging IdP in another region, 50–250 ms from the CI ' +
      'runner: every response arrives late, none out of order',
  },
  'errors-without-description': {
    does: 'no error_description in any error (RFC 6749 §4.1.2.1, §5.2: OPTIONAL)',
    source:
      'RFC 6749 §5.2 makes error_description OPTIONAL; Spring Authorization Server answers an unknown code with ' +
      '{"error":"invalid_grant"} alone (OAuth2AuthorizationCodeAuthenticationProvider throws ' +
      'OAuth2AuthenticationException(OAuth2ErrorCodes.INVALID_GRANT))',
  },
  'spa-login': {
    does:
      'the login form is rendered by a script from a data block; the served HTML has no form (the script allowed ' +
      'by its hash in the Content-Security-Policy)',
    source:
      'authentik flow executor (the login stage is a web component); Auth0 Lock and Okta Sign-In Widget ' +
      '(script-rendered login forms)',
  },
  'refresh-without-id-token': {
    does: 'refresh responses carry no id_token, openid scope or not',
    source:
      'OIDC Core §12.2 (the refresh response "might not contain an id_token"); Pocket ID answers the refresh grant ' +
      'without one (pocket-id issue #921); IdentityServer3 before 2.6',
  },
  'token-scope-omitted': {
    does: 'scope left out of a token response when it is the scope requested (every grant whose request named one)',
    source:
      'RFC 6749 §5.1 (scope "OPTIONAL, if identical to the scope requested by the client"); Auth0\'s documented ' +
      'authorization code token response carries no scope',
  },
  'signing-es256': {
    does:
      'ID tokens and JWT access tokens signed ES256 by default; an RS256 key beside it for the clients that ask ' +
      '(discovery lists both, as OIDC Core §15.1 and Discovery §3 require)',
    source:
      'Keycloak realm settings, Tokens, "Default signature algorithm" ES256 (a client may still ask for RS256: its ' +
      '"ID token signature algorithm")',
  },
  'found-redirects': {
    does: "302 Found instead of 303 See Other for the authorization endpoint's redirects answered to a GET",
    source:
      "RFC 6749 §4.1.2 (its example is an HTTP/1.1 302 Found); Spring Security's DefaultRedirectStrategy " +
      '(Spring Authorization Server) and Keycloak answer authorization responses with 302',
  },
  'par-redirect-relaxed': {
    does:
      "a confidential client's pushed authorization request (authenticated at the PAR endpoint) may name a redirect " +
      'URI it never registered (absolute, no fragment); every request that is not pushed, and every public ' +
      "client's, is still matched exactly",
    source:
      'RFC 9126 §2.4: "The exact matching requirement MAY be relaxed by the authorization server for a confidential ' +
      'client using pushed authorization requests"; §2.1: the server MAY allow clients with authentication ' +
      'credentials to establish per-authorization-request redirect URIs with every pushed request',
  },
} as const satisfies Record<string, VariantInfo>;

export type VariantName = keyof typeof VARIANTS;

export const VARIANT_NAMES: readonly VariantName[] = Object.keys(VARIANTS).filter(isVariantName);

export function isVariantName(name: string): name is VariantName {
  return Object.hasOwn(VARIANTS, name);
}

/** The variants a server instance runs with; `has` is read where each behaviour differs. */
export class Variants extends Switches<VariantName> {
  constructor(names: Iterable<string> = []) {
    super(names, isVariantName, 'variant', VARIANT_NAMES);
  }
}
