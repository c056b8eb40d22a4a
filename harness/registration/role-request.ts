/**
 * What the harness registers for a role (RFC 7591 §2): the client metadata it sends (redirect URIs on the loopback
 * port, the grant, response type and authentication method the role exists for, the scopes it asks for, a fresh key
 * for the keyed role, the logout URIs) and the target-config entry the client becomes once registered.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { GRANT } from '../../protocol/grants.ts';
import type { PrivateJwk } from '../config/clients-schema.ts';
import type { ClientEntry, TargetConfig } from '../config/schema.ts';
import { HarnessError } from '../model/failures.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { Target } from '../target/target.ts';

/** OpenID Connect's own scopes (OIDC Core §5.4, §11): about a user, never a machine client's. */
const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'address', 'phone', 'offline_access']);

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v): v is string => typeof v === 'string') ? value : undefined;

/** A private key for the keyed role: ES256 unless the IdP lists signing algorithms without it and with RS256. */
function generateClientKey(discovery: Record<string, unknown> | null): PrivateJwk {
  const algs = strings(discovery?.token_endpoint_auth_signing_alg_values_supported);
  const rsa = algs !== undefined && !algs.includes('ES256') && algs.includes('RS256');
  const kid = `idp-conformance-${randomBytes(6).toString('hex')}`;
  const key = rsa
    ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    : generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const jwk = key.export({ format: 'jwk' });
  if (!jwk.d) throw new HarnessError('node:crypto exported a private key without its private member d');
  return { ...jwk, kty: rsa ? 'RSA' : 'EC', kid, alg: rsa ? 'RS256' : 'ES256', d: jwk.d };
}

/** The public half of a private JWK (RFC 7517 §4: what the client registers in `jwks`). */
function publicJwk(jwk: PrivateJwk): Record<string, unknown> {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest } = jwk;
  return { ...rest, use: 'sig' };
}

/** The client metadata the harness sends for a role, and the target-config entry it becomes once registered. */
export interface RoleRequest {
  metadata: Record<string, unknown>;
  entry: Omit<ClientEntry, 'clientId'>;
}

/**
 * RFC 7591 §2 metadata for one role: redirect URIs on `loopback` (nothing listens there), the grant, response type and
 * authentication method the role exists for, and the scopes it asks for, from scopes_supported (as a hand-written
 * config would: openid with profile, email, offline_access; an API scope for machine and the first confidential
 * client, every API scope for exchange); the role's overrides from
 * registration.metadata over it.
 */
export function roleRequest(role: ClientRole, target: Target, loopback: string, config: TargetConfig): RoleRequest {
  const discovery = target.discovery;
  const supported = strings(discovery?.scopes_supported);
  const grants = strings(discovery?.grant_types_supported);
  const refresh = !grants || grants.includes(GRANT.refresh) ? [GRANT.refresh] : [];
  const ask = (...scopes: string[]) =>
    ['openid', ...scopes.filter((s) => !supported || supported.includes(s))].join(' ');
  const apis = (supported ?? []).filter((s) => !OIDC_SCOPES.has(s));
  const redirectUri = `${loopback}/${role}/callback`;
  const postLogoutRedirectUri = `${loopback}/${role}/logged-out`;
  const codeClient = (authMethod: 'client_secret_basic' | 'none' | 'private_key_jwt') => ({
    redirect_uris: [redirectUri],
    post_logout_redirect_uris: [postLogoutRedirectUri],
    grant_types: [GRANT.code, ...refresh],
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
  });
  const noRedirect = (grant: string, authMethod: 'client_secret_basic' | 'none') => ({
    grant_types: [grant, ...(grant === GRANT.device ? refresh : [])],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: authMethod,
  });
  const name = { client_name: `idp-conformance ${role} (delete me if the run left me behind)` };
  const logout = logoutRegistration(discovery ?? undefined, `${loopback}/${role}`);
  let request: RoleRequest;
  switch (role) {
    case 'confidential':
    case 'confidential2':
      request = {
        metadata: { ...codeClient('client_secret_basic'), ...(role === 'confidential' ? logout.metadata : {}) },
        entry: {
          redirectUri,
          postLogoutRedirectUri,
          // The first client also asks for an API scope: its tokens are what the exchange client exchanges.
          scope: ask('profile', 'email', 'offline_access', ...(role === 'confidential' ? apis.slice(0, 1) : [])),
          ...(role === 'confidential' ? logout.entry : {}),
        },
      };
      break;
    case 'public':
      request = { metadata: codeClient('none'), entry: { redirectUri, postLogoutRedirectUri, scope: ask('profile') } };
      break;
    case 'keyed': {
      const privateJwk = generateClientKey(discovery);
      request = {
        metadata: {
          ...codeClient('private_key_jwt'),
          token_endpoint_auth_signing_alg: privateJwk.alg,
          jwks: { keys: [publicJwk(privateJwk)] },
        },
        entry: {
          redirectUri,
          postLogoutRedirectUri,
          scope: ask('profile', 'email', 'offline_access'),
          privateJwk,
          authMethod: 'private_key_jwt',
        },
      };
      break;
    }
    case 'machine':
      // An API scope when the IdP lists one (not an OpenID Connect scope: client_credentials has no user).
      request = {
        metadata: noRedirect(GRANT.clientCredentials, 'client_secret_basic'),
        entry: apis.length ? { scope: apis[0]! } : {},
      };
      break;
    case 'exchange':
      // Every API scope: one the subject token holds (to downscope to) and others (to ask beyond it).
      request = {
        metadata: noRedirect(GRANT.exchange, 'client_secret_basic'),
        entry: apis.length ? { scope: apis.join(' ') } : {},
      };
      break;
    case 'device':
      request = {
        metadata: { ...noRedirect(GRANT.device, 'none'), application_type: 'native' },
        entry: { scope: ask('offline_access'), authMethod: 'none' },
      };
      break;
    case 'legacy':
      request = {
        metadata: {
          ...codeClient('client_secret_basic'),
          grant_types: [GRANT.code, GRANT.password, GRANT.implicit, ...refresh],
          response_types: ['code', 'token', 'id_token token'],
        },
        entry: { redirectUri, scope: ask('profile') },
      };
      break;
  }
  // The client is registered for the scopes it asks for (the scope.* scenarios ask beyond them), and offline_access
  // when it may refresh (the refresh scenarios add it to their requests, as to a hand-written config's clients).
  const registered = new Set(request.entry.scope?.split(' ').filter(Boolean));
  const grantsAsked = strings(request.metadata.grant_types) ?? [];
  if (registered.size && grantsAsked.includes(GRANT.refresh) && (!supported || supported.includes('offline_access')))
    registered.add('offline_access');
  const scope = registered.size ? { scope: [...registered].join(' ') } : {};
  request.metadata = { ...name, ...scope, ...request.metadata, ...config.registration?.metadata?.[role] };
  return request;
}

/**
 * The logout URIs the first confidential client registers where discovery offers the feature (OIDC Back-Channel
 * Logout §2.2, Front-Channel Logout §2), both with sid required: the back-channel one on the loopback port, where
 * logout.back-channel listens during its run; the front-channel one is never loaded.
 */
function logoutRegistration(
  discovery: Record<string, unknown> | undefined,
  base: string,
): { metadata: Record<string, unknown>; entry: Pick<ClientEntry, 'backchannelLogoutUri' | 'frontchannelLogoutUri'> } {
  const back = discovery?.backchannel_logout_supported === true ? `${base}/backchannel-logout` : undefined;
  const front = discovery?.frontchannel_logout_supported === true ? `${base}/frontchannel-logout` : undefined;
  return {
    metadata: {
      ...(back === undefined ? {} : { backchannel_logout_uri: back, backchannel_logout_session_required: true }),
      ...(front === undefined ? {} : { frontchannel_logout_uri: front, frontchannel_logout_session_required: true }),
    },
    entry: {
      ...(back === undefined ? {} : { backchannelLogoutUri: back }),
      ...(front === undefined ? {} : { frontchannelLogoutUri: front }),
    },
  };
}
