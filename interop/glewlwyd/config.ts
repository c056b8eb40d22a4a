/**
 * What a Glewlwyd 2.7 (Debian's package) deployment for the interop matrix is made of: its
 * libconfig file, the OIDC plugin instance, the scopes, the test user and the relying parties,
 * each as the admin REST API takes it (POST /api/mod/plugin/, /api/scope/, /api/user/,
 * /api/client/). Pure data: index.ts writes and sends them.
 */

/** Glewlwyd, and nginx to serve its web app in front of it as Debian's README.Debian advises. */
export const PACKAGES = ['glewlwyd', 'nginx-light'] as const;
export const GLEWLWYD = '/usr/bin/glewlwyd';
export const NGINX = '/usr/sbin/nginx';
/** The packaged single-page web app (login, grant, profile, admin); its files are partly relative symlinks. */
export const WEBAPP = '/usr/share/glewlwyd/webapp';
/** The webapp's own settings: the package's config.json is a symlink to this directory, which holds the file. */
export const WEBAPP_CONFIG = '/etc/glewlwyd/config-2.7.json/config.json';
/** The package's SQLite schema with the admin user (admin/password), its scopes and the database modules. */
export const INIT_SQL = '/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz';
/** The administrator the init script creates: a deployer signs in with it once to configure the rest. */
export const ADMIN = { username: 'admin', password: 'password' } as const;
/** The OIDC plugin instance's name: its endpoints are under /api/<name>, and so is the issuer. */
export const PLUGIN = 'oidc';
/**
 * The descriptor limit Glewlwyd runs under (`prlimit --nofile`), as a deployer raises it for a server that keeps
 * connections open. It does not help Glewlwyd's own static file server: that one keeps a descriptor open per file
 * served, and libmicrohttpd refuses every new connection whose socket number reaches FD_SETSIZE (1024), whatever the
 * limit (findings.md, "Descriptors"); so nginx serves the web app.
 */
export const NOFILE = 16_384;

export interface GlewlwydClient {
  role: string;
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  /**
   * Glewlwyd's authorization_type values: code, token, id_token, refresh_token, client_credentials, password,
   * device_authorization, delete_token.
   */
  grants: string[];
  /** The scopes the client itself holds (client_credentials); user flows take the user's. */
  ownScopes: string[];
  /** What the harness asks for (the target config's scope). */
  scope: string;
  firstParty: boolean;
}

/** The scopes the deployment adds beside the package's openid, g_admin and g_profile. */
export const SCOPES = [
  { name: 'profile', description: "The user's name" },
  { name: 'email', description: "The user's e-mail address" },
  { name: 'api:read', description: 'Read access to the example API (client_credentials)' },
] as const;

/**
 * The libconfig file: the API on loopback at `apiPort` behind nginx at `port` (the external URL), the SQLite database,
 * console log. No static files: nginx serves the web app.
 */
export function glewlwydConf(options: { port: number; apiPort: number; database: string }): string {
  const { port, apiPort, database } = options;

  // use_secure_connection is left out: 2.7.5 exits when it is false and the key/cert paths are unset.
  return `port=${apiPort}
bind_address="127.0.0.1"
external_url="http://127.0.0.1:${port}"
login_url="login.html"
api_prefix="api"
allow_origin="*"
allow_methods="GET, POST, PUT, DELETE, OPTIONS"
allow_headers="Origin, X-Requested-With, Content-Type, Accept, Bearer, Authorization, DPoP"
expose_headers="Content-Encoding, Authorization"
log_mode="console"
log_level="WARNING"
cookie_secure=0
cookie_same_site="empty"
session_expiration=2419200
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
plugin_api_run_enabled=""
add_x_frame_option_header_deny=true
max_post_size=16778240
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
hash_algorithm="SHA512"
database =
{
  type = "sqlite3"
  path = "${database}"
};
`;
}

/** The OIDC plugin instance: RS256 with the given key pair, every grant the catalog uses, PKCE, introspection. */
export function oidcPlugin(options: { issuer: string; privatePem: string; publicPem: string }) {
  return {
    module: 'oidc',
    name: PLUGIN,
    display_name: 'OpenID Connect',
    parameters: {
      iss: options.issuer,
      'jwt-type': 'rsa',
      'jwt-key-size': '256',
      key: options.privatePem,
      cert: options.publicPem,
      'access-token-duration': 3600,
      'refresh-token-duration': 1_209_600,
      'code-duration': 600,
      'refresh-token-rolling': true,
      // Rotation: a refresh token is good for one use and each refresh issues the next (RFC 9700 §4.14.2).
      'refresh-token-one-use': 'always',
      'allow-non-oidc': true,
      'auth-type-code-enabled': true,
      'auth-type-token-enabled': true,
      'auth-type-id-token-enabled': true,
      'auth-type-none-enabled': false,
      'auth-type-password-enabled': true,
      'auth-type-client-enabled': true,
      'auth-type-refresh-enabled': true,
      'auth-type-device-enabled': true,
      'auth-type-code-revoke-replayed': true,
      'pkce-allowed': true,
      'pkce-method-plain-allowed': false,
      'introspection-revocation-allowed': true,
      'introspection-revocation-allow-target-client': true,
      'jwks-show': true,
      'subject-type': 'public',
      'name-claim': 'on-demand',
      'name-claim-scope': ['profile'],
      'email-claim': 'on-demand',
      'email-claim-scope': ['email'],
      'scope-claim': 'no',
      'allowed-scope': ['openid', 'profile', 'email', 'api:read'],
      'device-authorization-expiration': 600,
      'device-authorization-interval': 5,
    },
  };
}

/** The relying parties, on 127.0.0.1:9 callbacks (never served: the harness stops at the redirect). */
export function clients(secret: () => string): GlewlwydClient[] {
  const redirect = (role: string) => `http://127.0.0.1:9/callback/${role}`;
  const userScope = 'openid profile email';
  return [
    {
      role: 'confidential',
      clientId: 'web-app',
      clientSecret: secret(),
      redirectUri: redirect('web-app'),
      grants: ['code', 'refresh_token', 'delete_token'],
      ownScopes: [],
      scope: userScope,
      firstParty: true,
    },
    {
      role: 'confidential2',
      clientId: 'partner-app',
      clientSecret: secret(),
      redirectUri: redirect('partner-app'),
      grants: ['code', 'refresh_token', 'delete_token'],
      ownScopes: [],
      scope: userScope,
      firstParty: true,
    },
    {
      role: 'public',
      clientId: 'spa',
      redirectUri: redirect('spa'),
      grants: ['code', 'refresh_token'],
      ownScopes: [],
      scope: 'openid profile',
      firstParty: false,
    },
    {
      role: 'machine',
      clientId: 'machine',
      clientSecret: secret(),
      grants: ['client_credentials'],
      ownScopes: ['api:read'],
      scope: 'api:read',
      firstParty: true,
    },
    {
      role: 'device',
      clientId: 'tv',
      grants: ['device_authorization', 'refresh_token'],
      ownScopes: [],
      scope: 'openid profile',
      firstParty: true,
    },
    {
      role: 'legacy',
      clientId: 'legacy',
      clientSecret: secret(),
      redirectUri: redirect('legacy'),
      // code with token and id_token: the hybrid response types (OIDC Core §3.3) too.
      grants: ['password', 'code', 'token', 'id_token'],
      ownScopes: [],
      scope: 'openid profile',
      firstParty: true,
    },
  ];
}

/** A client as POST /api/client/ takes it. */
export function clientBody(c: GlewlwydClient) {
  return {
    client_id: c.clientId,
    name: c.clientId,
    description: `interop ${c.role} client`,
    confidential: c.clientSecret !== undefined,
    ...(c.clientSecret ? { password: c.clientSecret } : {}),
    // Without it the OIDC plugin refuses every authentication of the client ("client 'x' is invalid", HTTP 403).
    token_endpoint_auth_method: c.clientSecret ? ['client_secret_basic', 'client_secret_post'] : ['none'],
    redirect_uri: c.redirectUri ? [c.redirectUri] : [],
    authorization_type: c.grants,
    scope: c.ownScopes,
    enabled: true,
  };
}

/**
 * nginx in front (Debian's README.Debian: a static file server for the web app, Glewlwyd behind it for /api and
 * /config): the copied web app from `webapp`, the rest proxied to Glewlwyd on `apiPort`, every file under `dir`.
 */
export function nginxConf(options: { port: number; apiPort: number; webapp: string; dir: string; user?: string }) {
  const { port, apiPort, webapp, dir, user } = options;
  const proxy = `proxy_pass http://glewlwyd;
      proxy_set_header Host $http_host;
      proxy_http_version 1.1;
      proxy_set_header Connection "";`;
  return `${user ? `user ${user};\n` : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log notice;
events {
  worker_connections 1024;
}
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path ${dir}/temp/body;
  proxy_temp_path ${dir}/temp/proxy;
  fastcgi_temp_path ${dir}/temp/fastcgi;
  uwsgi_temp_path ${dir}/temp/uwsgi;
  scgi_temp_path ${dir}/temp/scgi;
  server_tokens off;
  upstream glewlwyd {
    server 127.0.0.1:${apiPort};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port} default_server;
    server_name _;
    root ${webapp};
    # What Glewlwyd's own static file server sends with add_x_frame_option_header_deny=true.
    add_header X-Frame-Options deny always;
    location /api/ {
      ${proxy}
    }
    # The API's /config/ (not the web app's config.json, which nginx serves).
    location /config/ {
      ${proxy}
    }
  }
}
`;
}
