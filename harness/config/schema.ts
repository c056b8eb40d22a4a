/**
 * The target config's schema (docs/target-config.md), also the source of
 * schema/target-config.schema.json: the top-level fields, built from the client, registration,
 * login and discovery parts, and the checks across fields (a confidential role needs a secret or a
 * key, a code-flow role a redirect URI, an https issuer no http origin…), each naming the fix.
 */
import { z } from 'zod';
import { authorizationParams, rolesShape } from './clients-schema.ts';
import { discoveryOverrides } from './discovery-schema.ts';
import { httpUrl, nonEmpty, origin, secret } from './fields.ts';
import { EXAMPLES } from './issues.ts';
import { loginSchema } from './login-schema.ts';
import { registrationSchema } from './registration-schema.ts';
import { CLIENT_ROLES, type ClientRole } from '../model/requirements.ts';

export const targetConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe("Path or URL of this file's JSON schema (ignored)."),
    $comment: z.string().optional().describe('Free text (ignored).'),
    issuer: httpUrl('issuer').describe(
      'The issuer; discovery is at {issuer}/.well-known/openid-configuration, else at the RFC 8414 ' +
        '/.well-known/oauth-authorization-server.',
    ),
    discoveryUrl: httpUrl('discoveryUrl').optional().describe('Override of the discovery document URL.'),
    protocol: z
      .enum(['oauth2', 'oidc'], {
        error:
          'must be "oauth2" (an OAuth 2.0 authorization server without OpenID Connect) or "oidc" (an OpenID ' +
          'provider); leave it out to let the harness decide from the metadata and the code flow',
      })
      .optional()
      .describe(
        'What the target is: "oidc" (an OpenID provider) or "oauth2" (an OAuth 2.0 authorization server without ' +
          'OpenID Connect: OIDC-only scenarios are skipped). Default: decided from the metadata found and from ' +
          'whether a code flow with the openid scope returns an id_token.',
      ),
    discoveryOverrides: discoveryOverrides.optional(),
    authorizationParams: authorizationParams.optional(),
    tokenRequestEncoding: z
      .enum(['form', 'json'])
      .default('form')
      .describe('"form" (RFC 6749, every IdP) or "json" (the SPEC\'s token endpoint).'),
    clients: z
      .strictObject(rolesShape)
      .default({})
      .describe(
        'The clients by role; every role is optional, scenarios needing a missing one are skipped (or, with ' +
          'registration on, a client is registered for it).',
      ),
    registration: registrationSchema.optional(),
    user: z
      .strictObject({
        username: nonEmpty('username'),
        password: secret('password'),
      })
      .optional()
      .describe('A test user who can log in and consent.'),
    users: z
      .array(
        z.strictObject({
          username: nonEmpty('username'),
          password: secret('password'),
        }),
      )
      .optional()
      .describe(
        'More test users (optional, besides user): scenarios that act as a user and would otherwise wait for each ' +
          "other (one user's grants and sessions at a time) run at once, each as a user of its own.",
      ),
    login: loginSchema
      .default({ driver: 'auto', usernameField: 'username', passwordField: 'password' })
      .describe(
        'How the harness logs the user in: "auto" (the default: HTTP, and Chromium from a page that needs scripts), ' +
          '"form" (HTTP only, no browser) or "browser" (Chromium through Playwright throughout).',
      ),
    expectedFailures: z
      .array(
        z.string().regex(/^[a-z0-9-]+\.[a-z0-9-]+$/, {
          error: 'must be a scenario id such as "pkce.plain-rejected" (see `idp-conformance list`)',
        }),
      )
      .default([])
      .describe('Scenario ids whose failure is accepted for now: reported, but not failing the run.'),
    hooks: z
      .strictObject({
        rotateKeys: nonEmpty('rotateKeys')
          .optional()
          .describe(
            'How to make the IdP rotate its signing key (jwks.rotation): an http(s) URL the harness POSTs to, or a ' +
              'shell command it runs (exit 0 = rotated). Without it jwks.rotation is skipped.',
          ),
      })
      .optional()
      .describe('Test hooks: actions on the IdP that only its operator can take.'),
    resource: z
      .strictObject({
        url: httpUrl('resourceUrl').describe(
          "The protected resource's URL (RFC 9728 §1.2, the resource identifier): for an MCP server, its endpoint " +
            'URL, e.g. "https://mcp.example/mcp". Its origin may be requested besides the issuer\'s.',
        ),
        metadataUrl: httpUrl('resourceMetadataUrl')
          .optional()
          .describe(
            'Its protected resource metadata (RFC 9728 §3), when not at /.well-known/oauth-protected-resource{path}.',
          ),
        request: z
          .strictObject({
            method: z.enum(['GET', 'POST']).default('POST'),
            headers: z.record(z.string(), z.string()).default({}),
            body: z.string().optional(),
          })
          .optional()
          .describe(
            'A request to the resource that needs a token (the token goes in Authorization). Default: an MCP ' +
              'initialize request, POSTed as JSON-RPC.',
          ),
        otherResource: httpUrl('resourceUrl')
          .optional()
          .describe(
            'Another resource indicator (RFC 8707) the authorization server issues tokens for: a token for it must ' +
              'be refused by this resource (prm.audience-enforced; skipped without it).',
          ),
      })
      .optional()
      .describe('A protected resource the authorization server issues tokens for (an MCP server, RFC 9728).'),
    cimd: z
      .strictObject({
        baseUrl: httpUrl('cimdBaseUrl')
          .optional()
          .describe(
            "The public URL the harness's Client ID Metadata Documents are served under (a tunnel or proxy to the " +
              "listener; https for a remote authorization server). Default: the listener's own http://HOST:PORT.",
          ),
        listen: z
          .strictObject({
            host: z.string().min(1).default('127.0.0.1').describe('The address the listener binds.'),
            port: z.int().min(0).max(65535).default(0).describe('Its port (0: any free port).'),
          })
          .optional()
          .describe('Where the document listener listens (default 127.0.0.1, a free port).'),
      })
      .optional()
      .describe(
        "The harness's own Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): served " +
          'during the run, one per role, at a fresh random path. Without this section they are served only to a ' +
          'loopback target (127.0.0.1, a free port).',
      ),
    browser: z
      .strictObject({
        framingHost: z
          .string()
          .min(1)
          .default('127.0.0.1')
          .describe(
            "Where browser.clickjacking's framing page (another origin, which frames the IdP's pages) listens: an " +
              'address of this machine the browser reaches.',
          ),
        framingPort: z.int().min(0).max(65535).default(0).describe('Its port (0: any free port).'),
      })
      .optional()
      .describe("The browser scenarios' own servers (default: 127.0.0.1, a free port)."),
    timeouts: z
      .strictObject({
        requestMs: z.int().positive().optional().describe('Per HTTP request (default 10000).'),
        scenarioMs: z.int().positive().optional().describe('Per scenario (default 30000).'),
        withWaits: z
          .boolean()
          .optional()
          .describe(
            'Run the scenarios that wait out a lifetime (code.lifetime: a minute or more), as --with-waits does ' +
              '(default false: they are skipped with the wait they need).',
          ),
      })
      .optional(),
    codeLifetimeSeconds: z
      .int()
      .positive()
      .optional()
      .describe(
        "The target's documented authorization code lifetime, in seconds: code.lifetime (with --with-waits) waits " +
          'this long plus 5 s and expects the code refused (RFC 6749 §4.1.2: a code MUST expire). Without it the ' +
          'scenario waits 600 s, the RECOMMENDED maximum (a code accepted then is a warning); under --profile fapi2 ' +
          'at most 60 s (FAPI 2.0 SP §5.3.2.1).',
      ),
    allowedOrigins: z
      .array(origin)
      .default([])
      .describe(
        "Origins besides the issuer's that the harness may send requests to and the browser may load (e.g. a " +
          'separate login host). Default: none; everything else is refused.',
      ),
    limits: z
      .strictObject({
        maxBodyBytes: z
          .int()
          .min(1024)
          .optional()
          .describe(
            'Bytes read of one response body, after decompression (default 5242880, 5 MiB); a larger body is an error.',
          ),
      })
      .optional()
      .describe('Resource caps against a misbehaving target.'),
  })
  .superRefine((config, ctx) => {
    if (config.issuer.startsWith('https:')) {
      config.allowedOrigins.forEach((o, i) => {
        if (o.startsWith('http:')) {
          ctx.addIssue({
            code: 'custom',
            path: ['allowedOrigins', i],
            message: 'is http: but the issuer is https; secrets go over https only',
          });
        }
      });
    }
    if (config.users?.length) {
      if (!config.user)
        ctx.addIssue({
          code: 'custom',
          path: ['users'],
          message: 'are the users besides "user"; set "user" first (the user every scenario can act as)',
        });
      const names = [config.user?.username, ...config.users.map((u) => u.username)];
      config.users.forEach((u, i) => {
        if (names.indexOf(u.username) !== i + 1)
          ctx.addIssue({
            code: 'custom',
            path: ['users', i, 'username'],
            message: `"${u.username}" is named twice: each user of "user" and "users" must be another account`,
          });
      });
    }
    const confidentialRoles: ClientRole[] = ['confidential', 'confidential2', 'machine', 'exchange'];
    const redirectRoles: ClientRole[] = ['confidential', 'confidential2', 'public'];
    for (const role of CLIENT_ROLES) {
      const client = config.clients[role];
      if (!client) continue;
      const at = (field: string) => ['clients', role, field];
      // A confidential client proves itself with a secret, or with its key (private_key_jwt).
      const secretMissing = confidentialRoles.includes(role) && !client.clientSecret && !client.privateJwk;
      if (secretMissing) {
        ctx.addIssue({
          code: 'custom',
          path: at('clientSecret'),
          message: `is required for the ${role} role (a confidential client), e.g. "\${${role.toUpperCase()}_SECRET}"`,
        });
      }
      if (role === 'public' && client.clientSecret) {
        ctx.addIssue({
          code: 'custom',
          path: at('clientSecret'),
          message: 'a public client has no secret; remove it (a client with a secret belongs in "confidential")',
        });
      }
      if (redirectRoles.includes(role) && !client.redirectUri) {
        ctx.addIssue({
          code: 'custom',
          path: at('redirectUri'),
          message:
            `is required for the ${role} role (it runs the authorization code flow), ` + `e.g. ${EXAMPLES.redirectUri}`,
        });
      }
      if (client.authMethod === 'none' && client.clientSecret) {
        ctx.addIssue({
          code: 'custom',
          path: at('authMethod'),
          message:
            '"none" sends no secret but clientSecret is set; use "client_secret_basic" or "client_secret_post", or ' +
            'remove the secret',
        });
      }
      if (role === 'keyed' && !client.privateJwk) {
        ctx.addIssue({
          code: 'custom',
          path: at('privateJwk'),
          message:
            "is required for the keyed role (it authenticates with private_key_jwt): the client's private JWK, " +
            'e.g. {"kty":"EC","crv":"P-256","x":"…","y":"…","d":"…"}',
        });
      }
      if (role === 'keyed' && !client.redirectUri) {
        ctx.addIssue({
          code: 'custom',
          path: at('redirectUri'),
          message: `is required for the keyed role (it runs the authorization code flow), e.g. ${EXAMPLES.redirectUri}`,
        });
      }
      if (client.authMethod === 'private_key_jwt' && !client.privateJwk && role !== 'keyed') {
        ctx.addIssue({
          code: 'custom',
          path: at('privateJwk'),
          message:
            '"private_key_jwt" signs with the client\'s private JWK; add privateJwk or choose another authMethod',
        });
      }
      if (
        client.authMethod &&
        client.authMethod !== 'none' &&
        client.authMethod !== 'private_key_jwt' &&
        !client.clientSecret &&
        !secretMissing
      ) {
        ctx.addIssue({
          code: 'custom',
          path: at('authMethod'),
          message: `"${client.authMethod}" needs a clientSecret; add one or use "none"`,
        });
      }
    }
  });

export type TargetConfigInput = z.input<typeof targetConfigSchema>;
export type TargetConfig = z.output<typeof targetConfigSchema>;
export type ClientEntry = NonNullable<TargetConfig['clients'][ClientRole]>;
