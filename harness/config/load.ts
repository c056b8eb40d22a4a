/**
 * The target config (docs/target-config.md) as a run takes it: a file (JSONC) or an issuer URL,
 * `${ENV}` filled in and validated against the schema (config-schema.ts) with messages that name
 * the field and the fix, the clients with their defaults resolved, and the secrets to redact.
 * Nothing here sends a request.
 */
import { readFile } from 'node:fs/promises';
import { privateJwkStrings } from '../../protocol/jwk.ts';
import type { AuthMethod, PrivateJwk } from './clients-schema.ts';
import { clientSchema } from './clients-schema.ts';
import { interpolateEnv } from './env.ts';
import { isAbsoluteUrl, MIN_SECRET_LENGTH } from './fields.ts';
import { formatIssue, knownKeysIn } from './issues.ts';
import { type TargetConfig, targetConfigSchema } from './schema.ts';
import { ConfigError } from '../model/failures.ts';
import { parseJsonc } from './jsonc.ts';
import { CLIENT_ROLES, type ClientRole } from '../model/requirements.ts';

// The config's types, which most of the engine and the tests import from here.
export type { BrowserStep } from './login-schema.ts';
export type { TargetConfig, TargetConfigInput } from './schema.ts';

/** A client as scenarios see it: the config entry with defaults resolved. */
export interface Client {
  role: ClientRole;
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  scope: string;
  /**
   * The scope is the harness's, not a statement of the client's scope: the config names none (the default applied),
   * or the client was registered for the run and the registration response did not state its scope (the harness's
   * request stands). Never a premise for a failure: scope rules judge only against scopes the server declared.
   */
  scopeGuessed?: true;
  authMethod: AuthMethod;
  firstParty?: boolean;
  /** A registered post_logout_redirect_uri (OIDC RP-Initiated Logout §2). */
  postLogoutRedirectUri?: string;
  /** The registered backchannel_logout_uri (OIDC Back-Channel Logout §2.2): the harness listens at its port. */
  backchannelLogoutUri?: string;
  /** The registered frontchannel_logout_uri (OIDC Front-Channel Logout §2): never loaded. */
  frontchannelLogoutUri?: string;
  /** private_key_jwt: the client's private JWK. */
  privateJwk?: PrivateJwk;
  /** A resource indicator (RFC 8707) the IdP knows for this client. */
  resource?: string;
  /** The target's authorizationParams with this client's own over them. */
  authorizationParams?: Record<string, string>;
}

/**
 * The configured clients, with defaults. A client without a scope asks for `openid` where the target is (or may be)
 * an OpenID provider, for nothing on an OAuth 2.0 authorization server (`protocol`, or the kind the harness found);
 * that scope, and the scope of a role in `guessedScopes` (registered, the registration response silent on it), is
 * marked `scopeGuessed`.
 */
export function resolveClients(
  config: TargetConfig,
  protocol: 'oauth2' | 'oidc' | undefined = config.protocol,
  guessedScopes: ReadonlySet<ClientRole> = new Set(),
): Partial<Record<ClientRole, Client>> {
  const out: Partial<Record<ClientRole, Client>> = {};
  for (const role of CLIENT_ROLES) {
    const c = config.clients[role];
    if (!c) continue;
    out[role] = {
      role,
      clientId: c.clientId,
      ...(c.clientSecret ? { clientSecret: c.clientSecret } : {}),
      ...(c.redirectUri ? { redirectUri: c.redirectUri } : {}),
      scope: c.scope ?? (['machine', 'exchange'].includes(role) || protocol === 'oauth2' ? '' : 'openid'),
      ...(c.scope === undefined || guessedScopes.has(role) ? { scopeGuessed: true as const } : {}),
      authMethod: c.authMethod ?? (c.clientSecret ? 'client_secret_basic' : c.privateJwk ? 'private_key_jwt' : 'none'),
      ...(c.firstParty === undefined ? {} : { firstParty: c.firstParty }),
      ...(c.postLogoutRedirectUri ? { postLogoutRedirectUri: c.postLogoutRedirectUri } : {}),
      ...(c.backchannelLogoutUri ? { backchannelLogoutUri: c.backchannelLogoutUri } : {}),
      ...(c.frontchannelLogoutUri ? { frontchannelLogoutUri: c.frontchannelLogoutUri } : {}),
      ...(c.privateJwk ? { privateJwk: c.privateJwk } : {}),
      ...(c.resource ? { resource: c.resource } : {}),
      ...(config.authorizationParams || c.authorizationParams
        ? { authorizationParams: { ...config.authorizationParams, ...c.authorizationParams } }
        : {}),
    };
  }
  return out;
}

/** Every secret value in the config: redacted wherever it appears. */
export function configSecrets(
  config: TargetConfig,
): { value: string; kind: 'client_secret' | 'password' | 'private_key' | 'initial_access_token' }[] {
  const secrets: { value: string; kind: 'client_secret' | 'password' | 'private_key' | 'initial_access_token' }[] =
    Object.values(config.clients).flatMap((c) =>
      c?.clientSecret ? [{ value: c.clientSecret, kind: 'client_secret' as const }] : [],
    );
  const token = config.registration?.initialAccessToken;
  if (token) secrets.push({ value: token, kind: 'initial_access_token' });
  // A keyed client's private JWK: each private member, wherever it might appear.
  const keys = Object.values(config.clients).flatMap((c) =>
    c?.privateJwk
      ? privateJwkStrings(c.privateJwk).map((value) => ({
          value,
          kind: 'private_key' as const,
        }))
      : [],
  );
  const all = [...secrets, ...keys];
  const users = [...(config.user ? [config.user] : []), ...(config.users ?? [])];
  return [...all, ...users.map((u) => ({ value: u.password, kind: 'password' as const }))];
}

/**
 * A warning for each configured secret shorter than MIN_SECRET_LENGTH: the harness masks it where it puts it itself
 * (form fields, Basic credentials, token request bodies), but cannot find an echo of it in what the IdP sends.
 */
export function shortSecretWarnings(config: TargetConfig): string[] {
  const fields = [
    ...Object.entries(config.clients).flatMap(([role, c]) =>
      c?.clientSecret ? [{ field: `clients.${role}.clientSecret`, value: c.clientSecret }] : [],
    ),
    ...(config.user ? [{ field: 'user.password', value: config.user.password }] : []),
    ...(config.users ?? []).map((u, i) => ({ field: `users[${i}].password`, value: u.password })),
  ];
  return fields
    .filter(({ value }) => value.length < MIN_SECRET_LENGTH)
    .map(
      ({ field }) =>
        `${field} is shorter than ${MIN_SECRET_LENGTH} characters: the harness masks it where it sends it (form ` +
        `fields, Basic credentials, token request bodies), but an echo of so short a value by the IdP (in a page, ` +
        `a message) cannot be masked by value; use a longer one where the reports leave your machine`,
    );
}

const knownKeys = (path: readonly PropertyKey[]) =>
  knownKeysIn(targetConfigSchema, Object.keys(clientSchema.shape), CLIENT_ROLES, path);

/** Validate a parsed config object: ${ENV} interpolation, then the schema. */
export function validateConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): TargetConfig {
  const issues: string[] = [];
  const interpolated = interpolateEnv(raw, env, issues);
  const parsed = targetConfigSchema.safeParse(interpolated);
  if (!parsed.success)
    issues.push(...parsed.error.issues.flatMap((issue) => formatIssue(issue, interpolated, knownKeys)));
  if (issues.length || !parsed.success) throw new ConfigError(issues);
  return parsed.data;
}

export interface LoadedTarget {
  config: TargetConfig;
  source: 'file' | 'issuer-url';
  /** The file, or the issuer URL. */
  location: string;
}

/** `--target FILE|ISSUER_URL`. An issuer URL gives a config with no clients and no user. */
export async function loadTarget(target: string, env: NodeJS.ProcessEnv = process.env): Promise<LoadedTarget> {
  if (/^https?:\/\//i.test(target)) {
    if (!isAbsoluteUrl(target, ['http:', 'https:'])) {
      throw new ConfigError([`--target: "${target}" is not a valid URL, e.g. "https://idp.example"`]);
    }
    return { config: validateConfig({ issuer: target }, env), source: 'issuer-url', location: target };
  }
  let text: string;
  try {
    text = await readFile(target, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    const message = error instanceof Error ? error.message : String(error);
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : message;
    throw new ConfigError([
      `--target: cannot read "${target}" (${why}); pass a config file (\`idp-conformance init\` writes one) or ` +
        `an issuer URL`,
    ]);
  }
  return { config: validateConfig(parseJsonc(text, target), env), source: 'file', location: target };
}
