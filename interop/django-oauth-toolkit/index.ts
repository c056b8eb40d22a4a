/**
 * django-oauth-toolkit 1.7 (Debian's python3-django-oauth-toolkit, Django 3.2), served by Debian's
 * gunicorn from the minimal project in ./idp, configured as a careful deployer would:
 * - OIDC on, ID tokens RS256 with a fresh 2048-bit RSA key per start; the issuer pinned to
 *   http://127.0.0.1:PORT/o (never built from the Host header); only response_type=code.
 * - PKCE required for every client (PKCE_REQUIRED); authorization codes live 60 s; refresh tokens
 *   rotate on every use with no grace period; access and ID tokens live an hour.
 * - Exact redirect URIs on 127.0.0.1 with an explicit port (a loopback URI without a port would
 *   let any port through, RFC 8252 §7.3); each client may ask only for its own scopes
 *   (idp/scopes.py); claims are released by scope (idp/validator.py).
 * - Login: Django's LoginView (form fields username, password). Consent: DOT's own page
 *   (Authorize / Cancel), asked every time of the third-party public client; the first-party
 *   clients skip it (skip_authorization), as the service spec lets first-party clients do.
 * - Introspection (/o/introspect/, any authenticated confidential client) and revocation
 *   (/o/revoke_token/) are on, as they always are in DOT; userinfo at /o/userinfo/.
 * - sqlite with WAL, a busy timeout and IMMEDIATE transactions (idp/sqlite_immediate): Django 3.2
 *   otherwise answers "database is locked" under concurrent requests. gunicorn runs 2 workers × 4
 *   threads, so concurrent requests really are concurrent; its keep-alive is 10 s (the default 2 s
 *   closes idle connections under the harness's pooled ones).
 * - DOT 1.7 has no device grant, token exchange or implicit+password in one application: the
 *   legacy client is a confidential password-grant client.
 *
 * Its discovery (served at {issuer}/.well-known/openid-configuration/, with the trailing slash;
 * without it a 301) omits grant_types_supported, scopes_supported,
 * code_challenge_methods_supported and the revocation and introspection endpoints.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { targetConfigSchema } from '../../harness/config/schema.ts';
import type { InteropIdp, RunningIdp } from '../idp.ts';
import { aptInstall, aptLine, missingPackages, startProcess, waitForDiscovery } from '../support.ts';

const PACKAGES = ['python3-django-oauth-toolkit', 'python3-django', 'gunicorn'];
/** Debian's interpreter: another python3 (pyenv, a venv) may come first on PATH and lack Django. */
const PYTHON = '/usr/bin/python3';
const PROJECT = fileURLToPath(new URL('.', import.meta.url));
/** Where the harness's redirects end: never fetched (the harness stops at the redirect). */
const CALLBACK = 'http://127.0.0.1:9/callback';

const secret = () => randomBytes(32).toString('base64url');

/**
 * What DOT serves but its discovery leaves out (RFC 8414 field names), for a harness whose config
 * takes `discoveryOverrides` (docs/security.md). Only facts of this deployment: the grants its clients
 * use, and the revocation and introspection endpoints DOT always mounts. Left out of the target
 * config while the schema has no such field (it is strict), so the harness skips what needs them.
 */
function discoveryOverrides(issuer: string): Record<string, unknown> | undefined {
  if (!('discoveryOverrides' in targetConfigSchema.shape)) return undefined;
  return {
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'password'],
    revocation_endpoint: `${issuer}/revoke_token/`,
    introspection_endpoint: `${issuer}/introspect/`,
  };
}

interface DotClient {
  role: string;
  name: string;
  clientId: string;
  clientSecret?: string;
  clientType: 'confidential' | 'public';
  grantType: 'authorization-code' | 'client-credentials' | 'password';
  redirectUris?: string[];
  skipAuthorization?: boolean;
  scopes: string[];
  /** The target config's scope for the role (what the harness asks for). */
  targetScope: string;
  firstParty: boolean;
}

function clients(oidc: boolean): DotClient[] {
  const all = oidcClients();
  if (oidc) return all;
  // OAuth only: no openid scope anywhere; the user clients ask for profile (and email).
  const plain = (scopes: string) => scopes.split(' ').filter((s) => s !== 'openid');
  return all.map((c) => ({ ...c, scopes: plain(c.scopes.join(' ')), targetScope: plain(c.targetScope).join(' ') }));
}

function oidcClients(): DotClient[] {
  const userScopes = ['openid', 'profile', 'email', 'offline_access'];
  return [
    {
      role: 'confidential',
      name: 'Web app',
      clientId: 'web-app',
      clientSecret: secret(),
      clientType: 'confidential',
      grantType: 'authorization-code',
      redirectUris: [`${CALLBACK}/web-app`],
      skipAuthorization: true,
      scopes: [...userScopes, 'api:read'],
      targetScope: 'openid profile email',
      firstParty: true,
    },
    {
      role: 'confidential2',
      name: 'Partner app',
      clientId: 'partner-app',
      clientSecret: secret(),
      clientType: 'confidential',
      grantType: 'authorization-code',
      redirectUris: [`${CALLBACK}/partner-app`],
      skipAuthorization: true,
      scopes: userScopes,
      targetScope: 'openid profile email',
      firstParty: true,
    },
    {
      role: 'public',
      name: 'Single-page app',
      clientId: 'spa',
      clientType: 'public',
      grantType: 'authorization-code',
      redirectUris: [`${CALLBACK}/spa`],
      scopes: ['openid', 'profile', 'offline_access'],
      targetScope: 'openid profile',
      firstParty: false,
    },
    {
      role: 'machine',
      name: 'Machine',
      clientId: 'machine',
      clientSecret: secret(),
      clientType: 'confidential',
      grantType: 'client-credentials',
      scopes: ['api:read'],
      targetScope: 'api:read',
      firstParty: true,
    },
    {
      role: 'legacy',
      name: 'Legacy (password grant)',
      clientId: 'legacy',
      clientSecret: secret(),
      clientType: 'confidential',
      grantType: 'password',
      scopes: ['openid', 'profile'],
      targetScope: 'openid profile',
      firstParty: true,
    },
  ];
}

function targetClient(c: DotClient): Record<string, unknown> {
  return {
    clientId: c.clientId,
    ...(c.clientSecret ? { clientSecret: c.clientSecret } : {}),
    ...(c.redirectUris ? { redirectUri: c.redirectUris[0] } : {}),
    scope: c.targetScope,
    authMethod: c.clientSecret ? 'client_secret_basic' : 'none',
    firstParty: c.firstParty,
  };
}

async function ensureInstalled(): Promise<void> {
  const missing = await missingPackages(PACKAGES);
  if (missing.length)
    throw new Error(
      `django-oauth-toolkit is not installed: ${aptLine(missing)} (as root), or run npm run interop as root`,
    );
}

/**
 * The IdP module: `oidc` true is the OpenID provider above (django-oauth-toolkit); false the same
 * deployment with OIDC_ENABLED False (django-oauth-toolkit-oauth2): no openid scope, no ID tokens,
 * no userinfo or JWKS, and RFC 8414 metadata at /.well-known/oauth-authorization-server/o from a
 * view of the project's own (idp/metadata.py), as DOT 1.7 publishes none.
 */
export function dotIdp(name: string, oidc: boolean): InteropIdp {
  return {
    name,
    install: () => aptInstall(PACKAGES),
    start: (options) => start(options, oidc),
  };
}

async function start(
  { port, workDir, log }: { port: number; workDir: string; log?: (line: string) => void },
  oidc: boolean,
): Promise<RunningIdp> {
  await ensureInstalled();
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true });
  const issuer = `http://127.0.0.1:${port}/o`;
  const all = clients(oidc);
  const user = {
    username: 'alice',
    password: secret(),
    email: 'alice@example.test',
    firstName: 'Alice',
    lastName: 'Liddell',
  };
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await writeFile(path.join(workDir, 'oidc-key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  await writeFile(
    path.join(workDir, 'config.json'),
    JSON.stringify(
      {
        issuer,
        oidc,
        secretKey: secret(),
        user,
        clients: all.map(({ role: _role, targetScope: _scope, firstParty: _fp, ...c }) => c),
      },
      null,
      2,
    ),
    { mode: 0o600 },
  );

  const env = {
    ...process.env,
    IDP_WORKDIR: workDir,
    DJANGO_SETTINGS_MODULE: 'idp.settings',
    PYTHONPATH: PROJECT,
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const { stdout } = await promisify(execFile)(PYTHON, [path.join(PROJECT, 'idp', 'seed.py')], { env, cwd: workDir });
  if (stdout.trim()) log?.(`[django-oauth-toolkit] ${stdout.trim()}`);

  const gunicorn = startProcess(
    PYTHON,
    [
      '-m',
      'gunicorn',
      '--bind',
      `127.0.0.1:${port}`,
      '--workers',
      '2',
      '--threads',
      '4',
      '--timeout',
      '60',
      // Longer than the harness's 4 s keep-alive (harness/http/transport.ts): with gunicorn's default 2 s, it
      // closes pooled connections just as the harness reuses them ("other side closed").
      '--keep-alive',
      '10',
      '--graceful-timeout',
      '5',
      '--error-logfile',
      '-',
      'idp.wsgi:application',
    ],
    { env, cwd: workDir, log, name: 'gunicorn' },
  );
  const discoveryUrl = oidc
    ? `${issuer}/.well-known/openid-configuration/`
    : `http://127.0.0.1:${port}/.well-known/oauth-authorization-server/o`;
  try {
    await waitForDiscovery(discoveryUrl, gunicorn);
  } catch (error) {
    await gunicorn.stop();
    throw error;
  }

  return {
    targetConfig: {
      issuer,
      // DOT 1.7 serves discovery with a trailing slash only; the OAuth-only metadata is the project's view.
      discoveryUrl,
      ...(oidc && discoveryOverrides(issuer) ? { discoveryOverrides: discoveryOverrides(issuer) } : {}),
      tokenRequestEncoding: 'form',
      clients: Object.fromEntries(all.map((c) => [c.role, targetClient(c)])),
      user: { username: user.username, password: user.password },
      // No driver named: auto, the default (its pages are plain forms: it never needs the browser).
      login: { usernameField: 'username', passwordField: 'password' },
      expectedFailures: [],
      // Generous: every login runs Django's PBKDF2 (hundreds of ms), and the interop tests run
      // beside the rest of npm test on a loaded machine (browser scenarios take 20 s there).
      timeouts: { requestMs: 30_000, scenarioMs: 180_000 },
    },
    // gunicorn's master stops its workers on SIGTERM and exits after them.
    stop: () => gunicorn.stop(),
  };
}

export default dotIdp('django-oauth-toolkit', true);
