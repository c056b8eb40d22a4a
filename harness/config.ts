/**
 * The target config (docs/target-config.md): one zod schema (also the source of
 * schema/target-config.schema.json), `${ENV}` interpolation, JSONC comments, and validation
 * messages that name the field and the fix. Nothing here sends a request.
 */
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { REGISTRATION_RESPONSE_FIELDS } from '../protocol/registration.ts';
import { CLIENT_ROLES, type ClientRole } from './requirements.ts';
import { EXAMPLES, formatIssue, interpolateEnv, knownKeysIn } from './config-issues.ts';
import { ConfigError } from './failures.ts';
import { privateJwkStrings } from '../protocol/jwk.ts';
import { parseJsonc } from './jsonc.ts';

function isAbsoluteUrl(value: string, schemes?: string[]): boolean {
  try {
    const url = new URL(value);
    return !schemes || schemes.includes(url.protocol);
  } catch {
    return false;
  }
}

const httpUrl = (field: string) =>
  z.string().refine((v) => isAbsoluteUrl(v, ['http:', 'https:']), {
    error: `must be an absolute http(s) URL, e.g. ${EXAMPLES[field]}`,
  });

const nonEmpty = (field: string) =>
  z.string().min(1, { error: `must not be empty${EXAMPLES[field] ? `, e.g. ${EXAMPLES[field]}` : ''}` });

/**
 * Secrets are redacted by value wherever they appear; a shorter one cannot be (it would garble report text). It is
 * accepted all the same (test IdPs ship demo users such as dwho/dwho), with a warning at start (shortSecretWarnings).
 */
export const MIN_SECRET_LENGTH = 8;
const secret = (field: string) => nonEmpty(field);

/** An entry of allowedOrigins: an http(s) origin, nothing after it. */
const origin = z.string().refine(
  (v) => {
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'https:' || u.protocol === 'http:') &&
        `${u.origin}/` === u.href.replace(/\/?$/, '/') &&
        u.pathname === '/'
      );
    } catch {
      return false;
    }
  },
  { error: 'must be an http(s) origin without a path, e.g. "https://login.idp.example"' },
);

export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'] as const;

/** A private JWK (RSA, EC or OKP) as JSON: node:crypto must be able to import it. */
const privateJwkSchema = z
  .looseObject({
    kty: z.enum(['RSA', 'EC', 'OKP'], { error: 'must be "RSA", "EC" or "OKP" (an asymmetric key)' }),
    d: z
      .string()
      .min(1, { error: 'the private member "d" is required: the harness signs client assertions with this key' }),
    kid: z.string().optional(),
    alg: z.string().optional(),
  })
  .refine(
    (jwk) => {
      try {
        return createPrivateKey({ key: jwk as never, format: 'jwk' }).asymmetricKeyType !== undefined;
      } catch {
        return false;
      }
    },
    { error: 'is not a private key node:crypto can import (check crv, x, y, n, e and the private members)' },
  );
export type AuthMethod = (typeof AUTH_METHODS)[number];

/**
 * Parameters the harness sets on each authorization request itself (or a scenario varies):
 * authorizationParams may not set them.
 */
export const HARNESS_AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'request',
  'request_uri',
  'response_mode',
] as const;

const authorizationParams = z
  .record(z.string().min(1), z.string())
  .superRefine((params, ctx) => {
    for (const name of Object.keys(params)) {
      if ((HARNESS_AUTHORIZATION_PARAMS as readonly string[]).includes(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            `is set by the harness on every authorization request (or varied by scenarios); remove ` +
            `it${name === 'scope' ? ' and use the client\'s "scope"' : ''}`,
        });
      }
    }
  })
  .describe(
    'Extra parameters added to every authorization request (e.g. acr_values, audience, resource); scenarios may ' +
      'still replace them.',
  );

/**
 * RFC 8414 §2 and OpenID Connect Discovery §3 metadata: the fields discoveryOverrides may set.
 * A misspelt field would silently change nothing, so an unknown one is a config error.
 */
export const DISCOVERY_FIELDS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'userinfo_endpoint',
  'jwks_uri',
  'registration_endpoint',
  'scopes_supported',
  'response_types_supported',
  'response_modes_supported',
  'grant_types_supported',
  'acr_values_supported',
  'subject_types_supported',
  'id_token_signing_alg_values_supported',
  'id_token_encryption_alg_values_supported',
  'id_token_encryption_enc_values_supported',
  'userinfo_signing_alg_values_supported',
  'userinfo_encryption_alg_values_supported',
  'userinfo_encryption_enc_values_supported',
  'request_object_signing_alg_values_supported',
  'request_object_encryption_alg_values_supported',
  'request_object_encryption_enc_values_supported',
  'token_endpoint_auth_methods_supported',
  'token_endpoint_auth_signing_alg_values_supported',
  'display_values_supported',
  'claim_types_supported',
  'claims_supported',
  'service_documentation',
  'claims_locales_supported',
  'ui_locales_supported',
  'claims_parameter_supported',
  'request_parameter_supported',
  'request_uri_parameter_supported',
  'require_request_uri_registration',
  'op_policy_uri',
  'op_tos_uri',
  'revocation_endpoint',
  'revocation_endpoint_auth_methods_supported',
  'revocation_endpoint_auth_signing_alg_values_supported',
  'introspection_endpoint',
  'introspection_endpoint_auth_methods_supported',
  'introspection_endpoint_auth_signing_alg_values_supported',
  'code_challenge_methods_supported',
  'device_authorization_endpoint',
  'end_session_endpoint',
  'check_session_iframe',
  'frontchannel_logout_supported',
  'backchannel_logout_supported',
  'pushed_authorization_request_endpoint',
  'require_pushed_authorization_requests',
  'dpop_signing_alg_values_supported',
  'authorization_response_iss_parameter_supported',
  'mtls_endpoint_aliases',
  'tls_client_certificate_bound_access_tokens',
] as const;

const discoveryOverrides = z
  .record(z.string(), z.unknown())
  .superRefine((overrides, ctx) => {
    for (const [field, value] of Object.entries(overrides)) {
      if (!(DISCOVERY_FIELDS as readonly string[]).includes(field)) {
        const near = DISCOVERY_FIELDS.filter(
          (f) =>
            f.includes(field.replace(/_supported$|_endpoint$/, '')) ||
            field.includes(f.replace(/_supported$|_endpoint$/, '')),
        ).slice(0, 3);
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message:
            `is not an RFC 8414 / OpenID Connect Discovery metadata ` +
            `field${near.length ? `; did you mean ${near.map((f) => `"${f}"`).join(' or ')}?` : ''}`,
        });
      } else if (
        field.endsWith('_supported') &&
        !field.endsWith('_parameter_supported') &&
        !/^(frontchannel|backchannel)_logout_supported$/.test(field) &&
        !(Array.isArray(value) && value.every((v) => typeof v === 'string'))
      ) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'must be a JSON array of strings, e.g. ["authorization_code", "refresh_token"]',
        });
      } else if (
        (field.endsWith('_endpoint') || field === 'jwks_uri') &&
        !(typeof value === 'string' && isAbsoluteUrl(value, ['http:', 'https:']))
      ) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'must be an absolute http(s) URL' });
      }
    }
  })
  .describe(
    'RFC 8414 / OpenID Connect Discovery fields merged over the fetched discovery document, for an IdP whose ' +
      'discovery omits or understates what it does (e.g. "grant_types_supported"). Shown in every report.',
  );

const clientSchema = z.strictObject({
  clientId: nonEmpty('clientId').describe('The client_id registered at the IdP.'),
  clientSecret: secret('clientSecret')
    .optional()
    .describe('The client secret (confidential clients). Use ${ENV} to keep it out of the file.'),
  redirectUri: z
    .string()
    .refine((v) => isAbsoluteUrl(v), { error: `must be an absolute URL, e.g. ${EXAMPLES.redirectUri}` })
    .optional()
    .describe('A redirect URI registered for the client (exact match). Never fetched by the harness.'),
  scope: z.string().optional().describe('Space-separated scopes the client may request.'),
  authMethod: z
    .enum(AUTH_METHODS)
    .optional()
    .describe(
      'Token endpoint client authentication; default client_secret_basic with a secret, private_key_jwt with a ' +
        'privateJwk, none without either.',
    ),
  privateJwk: privateJwkSchema
    .optional()
    .describe(
      "private_key_jwt (RFC 7523, OIDC Core §9): the client's private JWK, whose public key the IdP has registered. " +
        'A secret: redacted in every report; keep it out of the file with ${ENV} where you can.',
    ),
  resource: z
    .string()
    .refine((v) => isAbsoluteUrl(v), {
      error: 'must be an absolute URI without a fragment (RFC 8707 §2), e.g. "https://api.example.com"',
    })
    .optional()
    .describe(
      'A resource indicator (RFC 8707) the IdP knows for this client: resource.audience asks for a token ' +
        'restricted to it, and the jwt.* scenarios ask with it for a JWT access token when the plain one is opaque.',
    ),
  firstParty: z.boolean().optional().describe('First-party (trusted) or third-party client, per the SPEC table.'),
  postLogoutRedirectUri: z
    .string()
    .refine((v) => isAbsoluteUrl(v), { error: `must be an absolute URL, e.g. ${EXAMPLES.postLogoutRedirectUri}` })
    .optional()
    .describe(
      'A post_logout_redirect_uri registered for the client (OIDC RP-Initiated Logout): logout.rp-initiated needs ' +
        'it. Never fetched.',
    ),
  authorizationParams: authorizationParams.optional(),
});

const ROLE_DESCRIPTIONS: Record<ClientRole, string> = {
  confidential: 'A confidential client (secret, redirect URI) for the authorization code flow.',
  confidential2: 'A second confidential client, for cross-client binding checks.',
  public: 'A public client (no secret, PKCE) with a redirect URI.',
  machine: 'A confidential client for client_credentials.',
  device: 'A client for the device authorization grant (RFC 8628).',
  exchange: 'A confidential client for token exchange (RFC 8693).',
  legacy:
    'A client allowed the deprecated password and implicit grants (redirect URI for implicit; secret if confidential).',
  keyed:
    'A confidential client that authenticates with private_key_jwt (privateJwk), for the code flow: PAR, DPoP and ' +
    'FAPI 2.0 scenarios.',
};

const rolesShape = Object.fromEntries(
  CLIENT_ROLES.map((role) => [role, clientSchema.optional().describe(ROLE_DESCRIPTIONS[role])]),
) as Record<ClientRole, z.ZodOptional<typeof clientSchema>>;

/**
 * The roles the harness registers by default when registration is on (issue 30): every role the catalog uses but the
 * deprecated legacy one (password and implicit grants), which is registered only when registration.roles lists it.
 */
export const DEFAULT_REGISTERED_ROLES: readonly ClientRole[] = CLIENT_ROLES.filter((role) => role !== 'legacy');

const metadataOverrides = z.record(z.string().min(1), z.unknown()).superRefine((metadata, ctx) => {
  for (const name of Object.keys(metadata)) {
    if ((REGISTRATION_RESPONSE_FIELDS as readonly string[]).includes(name)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'is set by the IdP in its registration response (RFC 7591 §3.2.1), not sent by a client; remove it',
      });
    }
  }
});

const registrationSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .describe(
        'Register the clients the config does not name (RFC 7591) before the scenarios, and delete them after ' +
          '(RFC 7592 §2.3), whatever ends the run.',
      ),
    initialAccessToken: secret('initialAccessToken')
      .optional()
      .describe(
        'An initial access token (RFC 7591 §3), sent as a Bearer token with each registration request, when the ' +
          'IdP requires one. A secret: use ${ENV}.',
      ),
    endpoint: httpUrl('endpoint')
      .optional()
      .describe('The registration endpoint, when discovery has no registration_endpoint (or it is the wrong one).'),
    roles: z
      .array(z.enum(CLIENT_ROLES))
      .optional()
      .describe(
        'Which roles to register when the config has no client for them (default: ' +
          `${DEFAULT_REGISTERED_ROLES.join(', ')}; add "legacy" to register that one too).`,
      ),
    metadata: z
      .strictObject(
        Object.fromEntries(
          CLIENT_ROLES.map((role) => [
            role,
            metadataOverrides
              .optional()
              .describe(`Client metadata (RFC 7591 §2) sent for the ${role} role, over the harness's own.`),
          ]),
        ) as Record<ClientRole, z.ZodOptional<typeof metadataOverrides>>,
      )
      .optional()
      .describe(
        'Per role, client metadata (RFC 7591 §2, OIDC Registration §2) merged over what the harness sends, e.g. ' +
          '{"confidential": {"scope": "openid profile email"}}.',
      ),
  })
  .describe(
    'Dynamic client registration (RFC 7591/7592): the harness registers the clients it needs and deletes them when ' +
      'the run ends. With it, a config needs only the issuer, a user and a login.',
  );

const selector = (what: string) =>
  z.string().min(1).describe(`A Playwright selector (CSS, text=…, role=…) of the element to ${what}.`);
const stepOptions = {
  optional: z
    .boolean()
    .optional()
    .describe('Skip the step when its element does not appear (within timeoutMs, default 2000 for optional steps).'),
  timeoutMs: z
    .int()
    .positive()
    .optional()
    .describe('How long to wait for the element to be visible (default: timeouts.requestMs, else 10000).'),
  decision: z
    .enum(['approve', 'deny'])
    .optional()
    .describe(
      'Run the step only when the user approves (or denies): mark the consent click with it, so a scenario that ' +
        'denies does not approve.',
    ),
};

const browserStep = z.union([
  z.strictObject({
    fill: selector('fill'),
    value: z.string().describe('The text; ${user.username} and ${user.password} stand for the configured user.'),
    ...stepOptions,
  }),
  z.strictObject({ click: selector('click'), ...stepOptions }),
  z.strictObject({ check: selector('check (a checkbox)'), ...stepOptions }),
  z.strictObject({ waitFor: selector('wait for'), ...stepOptions }),
]);
export type BrowserStep = z.output<typeof browserStep>;

/**
 * Whether walks may share the run's signed-in session (AuthorizeOptions.session "shared"): a speed-up only, which never
 * changes a verdict (a shared walk that fails is done again on a fresh session). false: every walk starts fresh.
 */
const shareSession = z
  .boolean()
  .optional()
  .describe(
    "Whether walks that need no sign-in page share the run's signed-in session (default true: faster). false " +
      'signs in afresh on every walk (the same verdicts, slower): to rule the shared session out.',
  );

/** Whether browser walks load images, fonts and media (default false: a sign-in needs none of them). */
const loadAssets = z
  .boolean()
  .optional()
  .describe(
    'Whether browser walks load images, fonts and media (default false: never requested, which spares the IdP ' +
      'hundreds of requests a run). true: for a login step that needs one (e.g. waits for an image).',
  );

/** The fields of the drivers that walk pages over HTTP (form, and auto until a page needs the browser). */
const httpLogin = {
  shareSession,
  loadAssets,
  usernameField: z.string().min(1).default('username').describe("Name of the login form's username input."),
  passwordField: z.string().min(1).default('password').describe("Name of the login form's password input."),
  userAgent: z
    .string()
    .min(1)
    .regex(/^[\x20-\x7e]+$/, { error: 'must be printable ASCII (an HTTP header value)' })
    .optional()
    .describe(
      'The User-Agent of the pages opened and the forms submitted over HTTP (navigations). Default: a ' +
        "desktop Chromium's. Back-channel requests (token, userinfo…) name the harness instead.",
    ),
};

const loginSchema = z.discriminatedUnion('driver', [
  z.strictObject({
    // No driver named: auto, the default.
    driver: z.literal('auto').default('auto'),
    ...httpLogin,
    steps: z
      .array(browserStep)
      .optional()
      .describe(
        'The login, step by step, in Chromium (the walk goes on in the browser where the steps would run): fill, ' +
          'click, check or waitFor a selector. Also the browser scenarios use them.',
      ),
  }),
  z.strictObject({
    driver: z.literal('form'),
    ...httpLogin,
    steps: z
      .array(browserStep)
      .optional()
      .describe(
        'Steps for the browser scenarios (browser.*), which log in through Chromium whichever driver the others ' +
          'use: as for the browser driver.',
      ),
  }),
  z.strictObject({
    driver: z.literal('browser'),
    shareSession,
    loadAssets,
    steps: z
      .array(browserStep)
      .optional()
      .describe(
        'The login, step by step, from the first page: fill, click, check or waitFor a selector. Without steps: ' +
          'fill the form that has a password input, then approve consent by its button.',
      ),
  }),
]);

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
      })
      .optional(),
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

/** A client as scenarios see it: the config entry with defaults resolved. */
export interface Client {
  role: ClientRole;
  clientId: string;
  clientSecret?: string;
  redirectUri?: string;
  scope: string;
  authMethod: AuthMethod;
  firstParty?: boolean;
  /** A registered post_logout_redirect_uri (OIDC RP-Initiated Logout §2). */
  postLogoutRedirectUri?: string;
  /** private_key_jwt: the client's private JWK. */
  privateJwk?: PrivateJwk;
  /** A resource indicator (RFC 8707) the IdP knows for this client. */
  resource?: string;
  /** The target's authorizationParams with this client's own over them. */
  authorizationParams?: Record<string, string>;
}

export type PrivateJwk = z.output<typeof privateJwkSchema>;

/**
 * The configured clients, with defaults. A client without a scope asks for `openid` where the target is (or may be)
 * an OpenID provider, for nothing on an OAuth 2.0 authorization server (`protocol`, or the kind the harness found).
 */
export function resolveClients(
  config: TargetConfig,
  protocol: 'oauth2' | 'oidc' | undefined = config.protocol,
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
      authMethod: c.authMethod ?? (c.clientSecret ? 'client_secret_basic' : c.privateJwk ? 'private_key_jwt' : 'none'),
      ...(c.firstParty === undefined ? {} : { firstParty: c.firstParty }),
      ...(c.postLogoutRedirectUri ? { postLogoutRedirectUri: c.postLogoutRedirectUri } : {}),
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
      ? privateJwkStrings(c.privateJwk as Record<string, unknown>).map((value) => ({
          value,
          kind: 'private_key' as const,
        }))
      : [],
  );
  const all = [...secrets, ...keys];
  return config.user ? [...all, { value: config.user.password, kind: 'password' }] : all;
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
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (error as Error).message;
    throw new ConfigError([
      `--target: cannot read "${target}" (${why}); pass a config file (\`idp-conformance init\` writes one) or ` +
        `an issuer URL`,
    ]);
  }
  return { config: validateConfig(parseJsonc(text, target), env), source: 'file', location: target };
}
