/**
 * The target config (DESIGN §4): one zod schema (also the source of
 * schema/target-config.schema.json), `${ENV}` interpolation, JSONC comments, and validation
 * messages that name the field and the fix. Nothing here sends a request.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { CLIENT_ROLES, type ClientRole } from './requirements.ts';
import { ConfigError } from './failures.ts';

function isAbsoluteUrl(value: string, schemes?: string[]): boolean {
  try {
    const url = new URL(value);
    return !schemes || schemes.includes(url.protocol);
  } catch {
    return false;
  }
}

const EXAMPLES: Record<string, string> = {
  issuer: '"https://idp.example"',
  discoveryUrl: '"https://idp.example/.well-known/openid-configuration"',
  redirectUri: '"https://app.example/callback"',
  clientId: '"my-app"',
  clientSecret: '"${WEB_SECRET}"',
  scope: '"openid profile"',
  username: '"alice"',
  password: '"${ALICE_PASSWORD}"',
};

const httpUrl = (field: string) =>
  z.string().refine((v) => isAbsoluteUrl(v, ['http:', 'https:']), {
    error: `must be an absolute http(s) URL, e.g. ${EXAMPLES[field]}`,
  });

const nonEmpty = (field: string) =>
  z.string().min(1, { error: `must not be empty${EXAMPLES[field] ? `, e.g. ${EXAMPLES[field]}` : ''}` });

export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

const clientSchema = z.strictObject({
  clientId: nonEmpty('clientId').describe('The client_id registered at the IdP.'),
  clientSecret: nonEmpty('clientSecret').optional()
    .describe('The client secret (confidential clients). Use ${ENV} to keep it out of the file.'),
  redirectUri: z.string()
    .refine((v) => isAbsoluteUrl(v), { error: `must be an absolute URL, e.g. ${EXAMPLES.redirectUri}` })
    .optional()
    .describe('A redirect URI registered for the client (exact match). Never fetched by the harness.'),
  scope: z.string().optional().describe('Space-separated scopes the client may request.'),
  authMethod: z.enum(AUTH_METHODS).optional()
    .describe('Token endpoint client authentication; default client_secret_basic with a secret, none without.'),
  firstParty: z.boolean().optional().describe('First-party (trusted) or third-party client, per the SPEC table.'),
});

const rolesShape = Object.fromEntries(CLIENT_ROLES.map((role) => [role, clientSchema.optional()])) as
  Record<ClientRole, z.ZodOptional<typeof clientSchema>>;

const browserStep = z.union([
  z.strictObject({ fill: z.string().min(1), value: z.string(), optional: z.boolean().optional() }),
  z.strictObject({ click: z.string().min(1), optional: z.boolean().optional() }),
]);

const loginSchema = z.discriminatedUnion('driver', [
  z.strictObject({
    driver: z.literal('form'),
    usernameField: z.string().min(1).default('username').describe('Name of the login form\'s username input.'),
    passwordField: z.string().min(1).default('password').describe('Name of the login form\'s password input.'),
  }),
  z.strictObject({
    driver: z.literal('browser'),
    steps: z.array(browserStep).min(1).describe('Playwright steps: fill a selector with a value, or click one.'),
  }),
]);

export const targetConfigSchema = z.strictObject({
  $schema: z.string().optional().describe('Path or URL of this file\'s JSON schema (ignored).'),
  $comment: z.string().optional().describe('Free text (ignored).'),
  issuer: httpUrl('issuer').describe('The issuer; discovery is at {issuer}/.well-known/openid-configuration.'),
  discoveryUrl: httpUrl('discoveryUrl').optional().describe('Override of the discovery document URL.'),
  tokenRequestEncoding: z.enum(['form', 'json']).default('form')
    .describe('"form" (RFC 6749, every IdP) or "json" (the SPEC\'s token endpoint).'),
  clients: z.strictObject(rolesShape).default({})
    .describe('The clients by role; every role is optional, scenarios needing a missing one are skipped.'),
  user: z.strictObject({
    username: nonEmpty('username'),
    password: nonEmpty('password'),
  }).optional().describe('A test user who can log in and consent.'),
  login: loginSchema.default({ driver: 'form', usernameField: 'username', passwordField: 'password' })
    .describe('How the harness logs the user in: "form" (HTTP, no browser) or "browser" (Playwright).'),
  expectedFailures: z.array(z.string().regex(/^[a-z0-9-]+\.[a-z0-9-]+$/, {
    error: 'must be a scenario id such as "pkce.plain-rejected" (see `idp-conformance list`)',
  })).default([]).describe('Scenario ids whose failure is accepted for now: reported, but not failing the run.'),
  timeouts: z.strictObject({
    requestMs: z.int().positive().optional().describe('Per HTTP request (default 10000).'),
    scenarioMs: z.int().positive().optional().describe('Per scenario (default 30000).'),
  }).optional(),
}).superRefine((config, ctx) => {
  const confidentialRoles: ClientRole[] = ['confidential', 'confidential2', 'machine', 'exchange'];
  const redirectRoles: ClientRole[] = ['confidential', 'confidential2', 'public'];
  for (const role of CLIENT_ROLES) {
    const client = config.clients[role];
    if (!client) continue;
    const at = (field: string) => ['clients', role, field];
    if (confidentialRoles.includes(role) && !client.clientSecret) {
      ctx.addIssue({ code: 'custom', path: at('clientSecret'),
        message: `is required for the ${role} role (a confidential client), e.g. ${EXAMPLES.clientSecret}` });
    }
    if (role === 'public' && client.clientSecret) {
      ctx.addIssue({ code: 'custom', path: at('clientSecret'),
        message: 'a public client has no secret; remove it (a client with a secret belongs in "confidential")' });
    }
    if (redirectRoles.includes(role) && !client.redirectUri) {
      ctx.addIssue({ code: 'custom', path: at('redirectUri'),
        message: `is required for the ${role} role (it runs the authorization code flow), e.g. ${EXAMPLES.redirectUri}` });
    }
    if (client.authMethod === 'none' && client.clientSecret) {
      ctx.addIssue({ code: 'custom', path: at('authMethod'),
        message: '"none" sends no secret but clientSecret is set; use "client_secret_basic" or "client_secret_post", or remove the secret' });
    }
    if (client.authMethod && client.authMethod !== 'none' && !client.clientSecret) {
      ctx.addIssue({ code: 'custom', path: at('authMethod'),
        message: `"${client.authMethod}" needs a clientSecret; add one or use "none"` });
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
}

export function resolveClients(config: TargetConfig): Partial<Record<ClientRole, Client>> {
  const out: Partial<Record<ClientRole, Client>> = {};
  for (const role of CLIENT_ROLES) {
    const c = config.clients[role];
    if (!c) continue;
    out[role] = {
      role,
      clientId: c.clientId,
      ...(c.clientSecret ? { clientSecret: c.clientSecret } : {}),
      ...(c.redirectUri ? { redirectUri: c.redirectUri } : {}),
      scope: c.scope ?? (['machine', 'exchange'].includes(role) ? '' : 'openid'),
      authMethod: c.authMethod ?? (c.clientSecret ? 'client_secret_basic' : 'none'),
      ...(c.firstParty === undefined ? {} : { firstParty: c.firstParty }),
    };
  }
  return out;
}

/** Every secret value in the config: redacted wherever it appears. */
export function configSecrets(config: TargetConfig): { value: string; kind: 'client_secret' | 'password' }[] {
  const secrets = Object.values(config.clients).flatMap((c) => (c?.clientSecret ? [{ value: c.clientSecret, kind: 'client_secret' as const }] : []));
  return config.user ? [...secrets, { value: config.user.password, kind: 'password' }] : secrets;
}

// ---------------------------------------------------------------------------------------------
// Parsing: JSONC → ${ENV} → schema.

/** Walk JSON text outside strings, letting `blank` decide how many characters at i to blank. */
function blankOutsideStrings(text: string, blank: (i: number) => number): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const n = blank(i);
    if (n > 0) {
      out += text.slice(i, i + n).replace(/[^\n]/g, ' ');
      i += n;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

/** Blank out // and /* *\/ comments, then trailing commas, outside strings; positions are kept. */
export function stripJsonComments(text: string): string {
  const noComments = blankOutsideStrings(text, (i) => {
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      return (end < 0 ? text.length : end) - i;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      return (end < 0 ? text.length : end + 2) - i;
    }
    return 0;
  });
  return blankOutsideStrings(noComments, (i) => (noComments[i] === ',' && /^\s*[}\]]/.test(noComments.slice(i + 1, i + 200)) ? 1 : 0));
}

function lineColumn(text: string, position: number): string {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

export function parseJsonc(text: string, source: string): unknown {
  const stripped = stripJsonComments(text);
  try {
    return JSON.parse(stripped);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const pos = /position (\d+)/.exec(message);
    const where = pos ? ` at ${lineColumn(stripped, Number(pos[1]))}` : '';
    throw new ConfigError([`${source}: not valid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, '')}`]);
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) =>
    typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key), '') || '(root)';
}

/** Replace `${NAME}` with environment variables everywhere; `$${` is a literal `${`. */
export function interpolateEnv(value: unknown, env: NodeJS.ProcessEnv, issues: string[], path: PropertyKey[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$?\$\{([^}]*)\}/g, (match, name: string) => {
      if (match.startsWith('$$')) return match.slice(1);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        issues.push(`${formatPath(path)}: "\${${name}}" is not a valid environment variable reference; use \${NAME} with letters, digits and _ (write $\${ for a literal \${)`);
        return match;
      }
      const v = env[name];
      if (v === undefined) {
        issues.push(`${formatPath(path)}: environment variable ${name} is not set; export ${name} or write the value into the file`);
        return match;
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolateEnv(v, env, issues, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateEnv(v, env, issues, [...path, k])]));
  }
  return value;
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  const distance = (a: string, b: string) => {
    const d = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let prev = d[0]!;
      d[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const tmp = d[j]!;
        d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
        prev = tmp;
      }
    }
    return d[b.length]!;
  };
  const contains = candidates.find((c) => c.toLowerCase().includes(word.toLowerCase()) || word.toLowerCase().includes(c.toLowerCase()));
  if (contains && word.length >= 3) return contains;
  const best = candidates.map((c) => [c, distance(word, c)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= Math.max(2, Math.floor(word.length / 3)) ? best[0] : undefined;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) v = v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/** Known keys of the object schema at a path (for "did you mean"). */
function knownKeys(path: readonly PropertyKey[]): string[] {
  const names = path.filter((k) => typeof k === 'string');
  if (names.length === 0) return Object.keys(targetConfigSchema.shape);
  if (names[0] === 'clients') return names.length === 1 ? [...CLIENT_ROLES] : Object.keys(clientSchema.shape);
  if (names[0] === 'user') return ['username', 'password'];
  if (names[0] === 'login') return ['driver', 'usernameField', 'passwordField', 'steps'];
  if (names[0] === 'timeouts') return ['requestMs', 'scenarioMs'];
  return [];
}

function formatIssue(issue: z.core.$ZodIssue, input: unknown): string[] {
  const at = formatPath(issue.path);
  const field = String(issue.path.at(-1) ?? '');
  const example = EXAMPLES[field] ? `, e.g. ${EXAMPLES[field]}` : '';
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const known = knownKeys(issue.path);
        const guess = closest(key, known);
        const where = formatPath([...issue.path, key]);
        return `${where}: unknown field${guess ? `; did you mean "${guess}"?` : '.'}${known.length ? ` Known fields: ${known.join(', ')}` : ''}`;
      });
    case 'invalid_type':
      if (valueAt(input, issue.path) === undefined) return [`${at}: is required${example}`];
      return [`${at}: must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}${example}`];
    case 'invalid_value':
      return [`${at}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (options) return [`${at}: must be one of ${options.map((v) => JSON.stringify(v)).join(', ')}`];
      return [`${at}: does not match any allowed shape (e.g. { "fill": "#username", "value": "..." } or { "click": "button" })`];
    }
    case 'too_small':
      return [`${at}: ${issue.message}`];
    default:
      return [`${at}: ${issue.message}`];
  }
}

/** Validate an already-parsed config object (after interpolation). */
export function validateConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): TargetConfig {
  const issues: string[] = [];
  const interpolated = interpolateEnv(raw, env, issues);
  const parsed = targetConfigSchema.safeParse(interpolated);
  if (!parsed.success) issues.push(...parsed.error.issues.flatMap((issue) => formatIssue(issue, interpolated)));
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
    throw new ConfigError([`--target: cannot read "${target}" (${why}); pass a config file (\`idp-conformance init\` writes one) or an issuer URL`]);
  }
  return { config: validateConfig(parseJsonc(text, target), env), source: 'file', location: target };
}
