/**
 * better-auth 1.7.5 with @better-auth/oauth-provider 1.7.5 (the provider plugin pins its peers exactly, so
 * better-auth, @better-auth/core, @better-auth/utils, better-call and @better-fetch/fetch are the matching versions),
 * an OpenID provider (OIDC Discovery at /api/auth/.well-known/openid-configuration, RFC 8414 metadata at
 * /.well-known/oauth-authorization-server/api/auth), on SQLite through better-sqlite3 (compiled from source by npm ci,
 * about a minute). Installed with `npm ci` into ./server/node_modules from ./server/package-lock.json (never the
 * project's node_modules), run as a child process: `node server/server.mjs` on 127.0.0.1 at the port it is given,
 * its database a new file in the start's work folder, stopped by its PID.
 *
 * The set-up (./server/server.mjs has the code and the reasons): better-auth's defaults kept — PKCE required for every
 * client, strict refresh rotation, opaque access tokens unless a resource is requested (then an RS256 JWT), no
 * dynamic registration — with the jwt plugin on RS256, the device flow (oauthDeviceAuthorization), headless pages of
 * the server's own (plain HTML forms: sign-in, consent with Allow and Deny, device approval), an operator account that
 * creates the clients through the admin API, and the test user.
 *
 * Clients (every http loopback redirect URI needs application_type "native" in better-auth): confidential (code +
 * refresh, client_secret_basic, consent page), confidential2 (the same, first party: skip_consent), public (no secret,
 * consent page), machine (client_credentials, scope api:read), keyed (private_key_jwt with an RS256 key made per
 * start), device (the device flow, public). The confidential client may end the session (enable_end_session, its
 * post_logout_redirect_uri). No backchannel_logout_uri: better-auth accepts only https ones ("backchannel_logout_uri
 * must use https"), and the harness listens for the logout token on plain http at 127.0.0.1. The machine and
 * confidential clients are linked to the resource http://127.0.0.1:PORT/api (RFC 8707), for which better-auth issues
 * JWT access tokens.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import type { InteropIdp, RunningIdp } from '../idp.ts';
import { npmInstall, startNodeServer } from '../npm-install.ts';

/** ./server: package.json, package-lock.json, server.mjs, and node_modules once installed. */
const SERVER_DIR = fileURLToPath(new URL('./server/', import.meta.url));
/** Where the harness's redirects end: never fetched (the harness stops at the redirect). */
const CALLBACK = 'http://127.0.0.1:9/callback';
const OIDC = 'openid profile email offline_access';

interface Made {
  clientId: string;
  clientSecret?: string;
}

/** The body of better-auth's admin create-client call for a code-flow client on a loopback redirect URI. */
function codeClient(name: string, auth: string, extra: Record<string, unknown> = {}) {
  return {
    client_name: name,
    redirect_uris: [`${CALLBACK}/${name}`],
    token_endpoint_auth_method: auth,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    scope: OIDC,
    application_type: 'native',
    ...extra,
  };
}

const idp: InteropIdp = {
  name: 'better-auth',

  // npm ci into ./server/node_modules: better-sqlite3 compiles from source (about a minute); nothing from apt-get.
  install: () => npmInstall(SERVER_DIR, 'better-auth', (line) => console.log(line)),

  async start({ port, workDir, log }): Promise<RunningIdp> {
    const origin = `http://127.0.0.1:${port}`;
    const issuer = `${origin}/api/auth`;
    const resource = `${origin}/api`;
    const postLogout = `${CALLBACK}/web-app/logged-out`;
    const user = { email: 'alice@example.com', password: randomBytes(24).toString('base64url') };
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const privateJwk = { ...(await exportJWK(privateKey)), kid: 'keyed-1', alg: 'RS256' };
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
    const clients: Record<string, Record<string, unknown>> = {
      confidential: codeClient('web-app', 'client_secret_basic', {
        enable_end_session: true,
        post_logout_redirect_uris: [postLogout],
      }),
      confidential2: codeClient('partner-app', 'client_secret_basic', { skip_consent: true }),
      public: codeClient('spa', 'none'),
      machine: {
        client_name: 'machine',
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        client_credentials_scopes: ['api:read'],
        scope: 'api:read',
      },
      keyed: codeClient('keyed-app', 'private_key_jwt', { jwks: { keys: [publicJwk] } }),
      device: {
        client_name: 'device',
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        scope: OIDC,
        application_type: 'native',
      },
    };
    const server = await startNodeServer({
      dir: SERVER_DIR,
      name: 'better-auth',
      env: {
        INTEROP_PORT: String(port),
        INTEROP_WORK_DIR: workDir,
        INTEROP_SETUP: JSON.stringify({ user, resource, resourceClients: ['confidential', 'machine'], clients }),
      },
      discoveryUrl: `${issuer}/.well-known/openid-configuration`,
      timeoutMs: 120_000,
      ...(log ? { log } : {}),
    });
    let made: Record<string, Made>;
    try {
      made = JSON.parse(await readFile(path.join(workDir, 'clients.json'), 'utf8')) as Record<string, Made>;
    } catch (error) {
      await server.stop();
      throw error;
    }
    const scopeOf: Record<string, string> = {
      confidential: OIDC,
      confidential2: 'openid profile offline_access',
      public: 'openid profile offline_access',
      machine: 'api:read',
      keyed: 'openid profile',
      device: 'openid profile offline_access',
    };
    const target = (role: string, m: Made) => ({
      clientId: m.clientId,
      ...(m.clientSecret ? { clientSecret: m.clientSecret } : {}),
      ...(role === 'keyed' ? { privateJwk, authMethod: 'private_key_jwt' } : {}),
      ...(m.clientSecret ? { authMethod: 'client_secret_basic' } : {}),
      ...(role !== 'keyed' && !m.clientSecret ? { authMethod: 'none' } : {}),
      ...(['confidential', 'confidential2', 'public', 'keyed'].includes(role)
        ? { redirectUri: (clients[role]!.redirect_uris as string[])[0] }
        : {}),
      ...(['confidential', 'machine'].includes(role) ? { resource } : {}),
      ...(role === 'confidential' ? { postLogoutRedirectUri: postLogout } : {}),
      scope: scopeOf[role],
      firstParty: role === 'confidential2',
    });
    return {
      targetConfig: {
        issuer,
        discoveryUrl: `${issuer}/.well-known/openid-configuration`,
        tokenRequestEncoding: 'form',
        clients: Object.fromEntries(Object.entries(made).map(([role, m]) => [role, target(role, m)])),
        user: { username: user.email, password: user.password },
        // The server's own sign-in page: a plain HTML form (email, password) the auto driver fills over HTTP.
        login: { driver: 'auto', usernameField: 'email', passwordField: 'password' },
        expectedFailures: [],
        timeouts: { requestMs: 30_000, scenarioMs: 180_000 },
      },
      stop: () => server.stop(),
    };
  },
};

export default idp;
