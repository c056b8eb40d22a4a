/**
 * LemonLDAP::NG 2.16's configuration, written fresh for every start: lmConf-1.json (the File
 * configuration backend), lemonldap-ng.ini pointing at it, and nginx.conf for the portal. Pure
 * functions: nothing here touches the disk or the network.
 *
 * Deployment choices (a careful deployer's, each one named):
 * - The portal and the OIDC issuer are http://127.0.0.1:PORT: the portal answers on the loopback
 *   address directly (nginx has one default server), so no name in /etc/hosts is needed. The
 *   portal adds the cookie domain's leading dot itself (`.127.0.0.1`); the harness's form driver
 *   keeps cookies host-only, so the SSO cookie still comes back.
 * - DBI authentication and user database (userDB Same) on SQLite: a users table written fresh under
 *   workDir at every start with one test user whose password is random per start (24 characters),
 *   or, with `demoUser`, LLNG's Demo user dwho/dwho (password = login).
 *   The password column holds the password in clear (dbiAuthPasswordHash empty): LLNG's hashing
 *   calls an SQL function of that name (SHA256(?), ENCRYPT(...)), which SQLite does not have; the
 *   file is mode 0600 and the password dies with the start. Session attributes come from the row
 *   (dbiExportedVars). registerDB and passwordDB Null (no self-registration, no password change).
 *   Without registerDB = Null the portal stops at "Initialization failed … Unable to protect this
 *   server" when its captcha libraries are missing.
 * - OIDC: authorization code flow only (implicit and hybrid off), no dynamic registration, a fresh
 *   RS256 key (2048 bits) per start, ID tokens, userinfo and JWT access tokens signed RS256,
 *   claims released by scope only (oidcServiceIgnoreScopeForClaims 0), unknown scopes dropped
 *   (oidcServiceAllowOnlyDeclaredScopes) and, per client, scope rules that never grant a standard
 *   scope outside the client's registered scope (2.16 has no per-client scope list otherwise).
 * - Every client that runs the code flow requires PKCE (oidcRPMetaDataOptionsRequirePKCE): 2.16
 *   checks a code_verifier at the token endpoint only when this is on.
 * - First-party clients (confidential, confidential2) bypass consent and get (non-rotating)
 *   refresh tokens; the third-party public client asks for consent, has shorter lifetimes and no
 *   refresh token (2.16 cannot rotate refresh tokens, RFC 9700 §4.14.2 asks rotation or sender
 *   binding for public clients). machine may only use client_credentials, legacy only password.
 */

export const PACKAGES = [
  'lemonldap-ng',
  'lemonldap-ng-fastcgi-server',
  'nginx-light',
  'libimage-magick-perl',
  'libgd-securityimage-perl',
  'libstring-random-perl',
  'libdbd-sqlite3-perl',
] as const;

/** The SQLite users table DBI authentication reads: its name and its one row but the password. */
export const USERS_TABLE = 'users';
export const TEST_USER = { uid: 'interop', cn: 'Interop Test User', mail: 'interop@example.org' } as const;
/**
 * LemonLDAP::NG's Demo user, whose password is its login (4 characters): what a deployer trying the harness on a demo
 * install types in. The harness accepts it with a warning (short secrets are masked where the harness sends them).
 */
export const DEMO_USER = { uid: 'dwho', cn: 'Doctor Who', mail: 'dwho@badwolf.org', password: 'dwho' } as const;
/** The session attributes taken from the user's row (attribute: column); the OIDC claims map from them. */
const DBI_EXPORTED_VARS = { uid: 'uid', cn: 'cn', mail: 'mail' };

/**
 * The SQLite DBI data source for a database file. DBI splits the DSN's attributes on ";", so a
 * path holding one would be misread.
 */
export function sqliteDsn(file: string): string {
  if (/[;=]/.test(file)) throw new Error(`lemonldap-ng: the users database path must not contain ";" or "=": ${file}`);
  return `dbi:SQLite:dbname=${file}`;
}

/** Lifetimes in seconds. */
export const TTL = {
  firstParty: { accessToken: 3600, idToken: 3600, code: 60 },
  thirdParty: { accessToken: 600, idToken: 600, code: 60 },
  offlineSessionHours: 720,
};

export interface LlngClient {
  /** The key in oidcRPMetaDataOptions and the client_id. */
  role: 'confidential' | 'confidential2' | 'public' | 'machine' | 'legacy';
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  firstParty: boolean;
  /** What the harness asks for. */
  scope: string;
}

export interface LlngPaths {
  /** lmConf-N.json lives here (the File conf backend). */
  confDir: string;
  sessionsDir: string;
  psessionsDir: string;
  cacheDir: string;
  /** The FastCGI server's unix socket. */
  socket: string;
  nginxPid: string;
  nginxAccessLog: string;
  nginxErrorLog: string;
  nginxTempDir: string;
  /** The SQLite database holding the users table. */
  usersDb: string;
}

export interface SigningKey {
  kid: string;
  /** PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"), as Crypt::OpenSSL::RSA reads it. */
  privatePem: string;
  /** SPKI PEM ("BEGIN PUBLIC KEY"). */
  publicPem: string;
}

const PORTAL_ROOT = '/usr/share/lemonldap-ng/portal';

/** The claims every client may receive, by the user's session attributes (uid, cn, mail). */
const EXPORTED_VARS = { preferred_username: 'uid', name: 'cn', email: 'mail' };

function rpOptions(client: LlngClient): Record<string, unknown> {
  const ttl = client.firstParty ? TTL.firstParty : TTL.thirdParty;
  const codeFlow = client.redirectUri !== undefined;
  return {
    oidcRPMetaDataOptionsClientID: client.clientId,
    ...(client.clientSecret ? { oidcRPMetaDataOptionsClientSecret: client.clientSecret } : {}),
    oidcRPMetaDataOptionsPublic: client.clientSecret ? 0 : 1,
    oidcRPMetaDataOptionsDisplayName: client.role,
    ...(codeFlow ? { oidcRPMetaDataOptionsRedirectUris: client.redirectUri } : {}),
    oidcRPMetaDataOptionsRequirePKCE: codeFlow ? 1 : 0,
    oidcRPMetaDataOptionsBypassConsent: client.firstParty ? 1 : 0,
    oidcRPMetaDataOptionsIDTokenSignAlg: 'RS256',
    oidcRPMetaDataOptionsUserInfoSignAlg: '',
    oidcRPMetaDataOptionsAccessTokenJWT: 1,
    oidcRPMetaDataOptionsAccessTokenSignAlg: 'RS256',
    oidcRPMetaDataOptionsAccessTokenClaims: 0,
    oidcRPMetaDataOptionsAccessTokenExpiration: ttl.accessToken,
    oidcRPMetaDataOptionsIDTokenExpiration: ttl.idToken,
    oidcRPMetaDataOptionsAuthorizationCodeExpiration: ttl.code,
    oidcRPMetaDataOptionsIDTokenForceClaims: 0,
    // Refresh tokens only for first-party code-flow clients: tied to the SSO session, or for
    // offline_access (with prompt=consent) an offline session.
    oidcRPMetaDataOptionsAllowOffline: codeFlow && client.firstParty ? 1 : 0,
    oidcRPMetaDataOptionsOfflineSessionExpiration: TTL.offlineSessionHours * 3600,
    oidcRPMetaDataOptionsRefreshToken: codeFlow && client.firstParty ? 1 : 0,
    oidcRPMetaDataOptionsAllowClientCredentialsGrant: client.role === 'machine' ? 1 : 0,
    oidcRPMetaDataOptionsAllowPasswordGrant: client.role === 'legacy' ? 1 : 0,
    oidcRPMetaDataOptionsUserIDAttr: 'uid',
    oidcRPMetaDataOptionsLogoutSessionRequired: 0,
    oidcRPMetaDataOptionsLogoutType: 'front',
  };
}

/** Scopes LemonLDAP::NG knows without a rule (its OIDC_SCOPES) plus offline_access. */
const STANDARD_SCOPES = ['openid', 'profile', 'email', 'address', 'phone', 'offline_access'];

/**
 * Per-client scope rules: a standard scope outside the client's registered scope is never granted
 * ("0"); any other scope it registered is granted when requested. With
 * oidcServiceAllowOnlyDeclaredScopes, a scope neither standard nor ruled is dropped.
 */
export function scopeRules(client: LlngClient): Record<string, string> {
  const own = client.scope.split(' ').filter(Boolean);
  return Object.fromEntries([
    ...STANDARD_SCOPES.filter((s) => !own.includes(s)).map((s) => [s, '0']),
    ...own.filter((s) => !STANDARD_SCOPES.includes(s) || s === 'offline_access').map((s) => [s, '$requested']),
  ]);
}

/** lmConf-1.json. */
export function lmConf(options: {
  issuer: string;
  paths: LlngPaths;
  key: SigningKey;
  clients: LlngClient[];
}): Record<string, unknown> {
  const { issuer, paths, key, clients } = options;
  const host = new URL(issuer).hostname;
  return {
    cfgNum: 1,
    cfgAuthor: 'idp-conformance interop',
    cfgDate: String(Math.floor(Date.now() / 1000)),
    cfgVersion: '2.16.1',
    portal: `${issuer}/`,
    domain: host,
    cookieName: 'lemonldap',
    securedCookie: 0,
    httpOnly: 1,
    portalAntiFrame: 1,
    requireToken: 1,
    bruteForceProtection: 0,
    authentication: 'DBI',
    userDB: 'Same',
    passwordDB: 'Null',
    registerDB: 'Null',
    dbiAuthChain: sqliteDsn(paths.usersDb),
    dbiAuthUser: '',
    dbiAuthPassword: '',
    dbiAuthTable: USERS_TABLE,
    dbiUserTable: USERS_TABLE,
    dbiAuthLoginCol: 'uid',
    dbiAuthPasswordCol: 'password',
    dbiAuthPasswordHash: '',
    dbiDynamicHashEnabled: 0,
    userPivot: 'uid',
    dbiExportedVars: DBI_EXPORTED_VARS,
    exportedVars: {},
    whatToTrace: 'uid',
    macros: {},
    groups: {},
    applicationList: {},
    exportedHeaders: {},
    locationRules: {},
    loginHistoryEnabled: 0,
    notification: 0,
    portalDisplayRegister: 0,
    portalDisplayResetPassword: 0,
    checkUser: 0,
    timeout: 72000,
    globalStorage: 'Apache::Session::File',
    globalStorageOptions: {
      Directory: paths.sessionsDir,
      LockDirectory: `${paths.sessionsDir}/lock`,
      generateModule: 'Lemonldap::NG::Common::Apache::Session::Generate::SHA256',
    },
    persistentStorage: 'Apache::Session::File',
    persistentStorageOptions: { Directory: paths.psessionsDir, LockDirectory: `${paths.psessionsDir}/lock` },
    localSessionStorage: 'Cache::FileCache',
    localSessionStorageOptions: {
      cache_depth: 3,
      cache_root: paths.cacheDir,
      default_expires_in: 600,
      directory_umask: '007',
      namespace: 'lemonldap-ng-sessions',
    },
    issuerDBOpenIDConnectActivation: 1,
    oidcServiceMetaDataIssuer: issuer,
    oidcServicePrivateKeySig: key.privatePem,
    oidcServicePublicKeySig: key.publicPem,
    oidcServiceKeyIdSig: key.kid,
    oidcServiceAllowAuthorizationCodeFlow: 1,
    oidcServiceAllowImplicitFlow: 0,
    oidcServiceAllowHybridFlow: 0,
    oidcServiceAllowDynamicRegistration: 0,
    oidcServiceIgnoreScopeForClaims: 0,
    oidcServiceAllowOnlyDeclaredScopes: 1,
    oidcServiceAuthorizationCodeExpiration: TTL.firstParty.code,
    oidcServiceAccessTokenExpiration: TTL.firstParty.accessToken,
    oidcServiceIDTokenExpiration: TTL.firstParty.idToken,
    oidcRPMetaDataOptions: Object.fromEntries(clients.map((c) => [c.role, rpOptions(c)])),
    oidcRPMetaDataScopeRules: Object.fromEntries(clients.map((c) => [c.role, scopeRules(c)])),
    oidcRPMetaDataExportedVars: Object.fromEntries(clients.map((c) => [c.role, EXPORTED_VARS])),
  };
}

/** lemonldap-ng.ini: the File conf backend in confDir, a config cache beside it. */
export function lemonldapIni(paths: LlngPaths): string {
  return (
    `[all]
logLevel = notice
checkTime = 1

[configuration]
type = File
dirName = ${paths.confDir}
prettyPrint = 1
localStorage = Cache::FileCache
localStorageOptions = { 'namespace' => 'lemonldap-ng-config', 'default_expires_in' => 600, 'directory_umask' => ` +
    `'007', 'cache_root' => '${paths.cacheDir}', 'cache_depth' => 3 }

[portal]
staticPrefix = /static
templateDir = ${PORTAL_ROOT}/templates
languages = en

[handler]
status = 0
useRedirectOnError = 1
`
  );
}

/**
 * nginx.conf: one server on 127.0.0.1:port in front of the FastCGI socket, as Debian's
 * portal-nginx.conf does (the REST/SOAP session, config and proxy endpoints denied). `user` is set
 * when nginx starts as root, so its workers (www-data) can reach the socket.
 */
export function nginxConf(options: { port: number; paths: LlngPaths; user?: string }): string {
  const { port, paths, user } = options;
  const denied = ['adminSessions', 'proxy', 'sessions', 'config', 'notification']
    .map(
      (p) => `
      location ~ ^/index.psgi/${p} {
        deny all;
      }`,
    )
    .join('');
  return `${user ? `user ${user};\n` : ''}worker_processes 1;
pid ${paths.nginxPid};
error_log ${paths.nginxErrorLog} notice;
events {
  worker_connections 256;
}
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log ${paths.nginxAccessLog};
  client_body_temp_path ${paths.nginxTempDir}/body;
  fastcgi_temp_path ${paths.nginxTempDir}/fastcgi;
  proxy_temp_path ${paths.nginxTempDir}/proxy;
  uwsgi_temp_path ${paths.nginxTempDir}/uwsgi;
  scgi_temp_path ${paths.nginxTempDir}/scgi;
  server_tokens off;

  upstream llng_portal_upstream {
    server unix:${paths.socket};
  }

  server {
    listen 127.0.0.1:${port} default_server;
    server_name _;
    root ${PORTAL_ROOT}/htdocs/;

    if ($uri !~ ^/((static|javascript|favicon).*|.*\\.psgi)) {
      rewrite ^/(.*)$ /index.psgi/$1 break;
    }

    location ~ ^(?<sc>/.*\\.psgi)(?:$|/) {
      include /etc/nginx/fastcgi_params;
      fastcgi_pass llng_portal_upstream;
      fastcgi_param HTTP_HOST $http_host;
      fastcgi_param LLTYPE psgi;
      fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;
      fastcgi_split_path_info ^(.*\\.psgi)(/.*)$;
      fastcgi_param PATH_INFO $fastcgi_path_info;
${denied}
    }

    index index.psgi;
    location / {
      try_files $uri $uri/ =404;
    }
    location /static/ {
      alias ${PORTAL_ROOT}/htdocs/static/;
    }
    location /javascript/ {
      alias /usr/share/javascript/;
    }
  }
}
`;
}
