/**
 * Turning config problems into messages that name the field and the fix: zod issues, unknown
 * fields with a "did you mean", the example values the messages give, and field paths.
 */
import type { z } from 'zod';

export const EXAMPLES: Record<string, string> = {
  issuer: '"https://idp.example"',
  discoveryUrl: '"https://idp.example/.well-known/openid-configuration"',
  redirectUri: '"https://app.example/callback"',
  postLogoutRedirectUri: '"https://app.example/logged-out"',
  rotateKeys: '"https://idp.example/admin/rotate-keys" or "./rotate-keys.sh"',
  clientId: '"my-app"',
  clientSecret: '"${WEB_SECRET}"',
  scope: '"openid profile"',
  username: '"alice"',
  password: '"${ALICE_PASSWORD}"',
  initialAccessToken: '"${REGISTRATION_TOKEN}"',
  endpoint: '"https://idp.example/register"',
  resourceUrl: '"https://mcp.example/mcp"',
  resourceMetadataUrl: '"https://mcp.example/.well-known/oauth-protected-resource/mcp"',
  cimdBaseUrl: '"https://cimd.example/idp-conformance"',
};

export function formatPath(path: readonly PropertyKey[]): string {
  return (
    path.reduce<string>(
      (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
      '',
    ) || '(root)'
  );
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
  const contains = candidates.find(
    (c) => c.toLowerCase().includes(word.toLowerCase()) || word.toLowerCase().includes(c.toLowerCase()),
  );
  if (contains && word.length >= 3) return contains;
  const best = candidates.map((c) => [c, distance(word, c)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= Math.max(2, Math.floor(word.length / 3)) ? best[0] : undefined;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) v = v && typeof v === 'object' ? Reflect.get(v, key) : undefined;
  return v;
}

/** Known keys of the object schema at a path (for "did you mean"). */
export function knownKeysIn(
  schema: { shape: Record<string, unknown> },
  clientKeys: string[],
  roles: readonly string[],
  path: readonly PropertyKey[],
): string[] {
  const names = path.filter((k) => typeof k === 'string');
  if (names.length === 0) return Object.keys(schema.shape);
  if (names[0] === 'clients') return names.length === 1 ? [...roles] : clientKeys;
  if (names[0] === 'user') return ['username', 'password'];
  if (names[0] === 'login')
    return names.length > 1 && names[1] === 'steps'
      ? ['fill', 'value', 'click', 'check', 'waitFor', 'optional', 'timeoutMs', 'decision']
      : ['driver', 'usernameField', 'passwordField', 'steps'];
  if (names[0] === 'timeouts') return ['requestMs', 'scenarioMs', 'withWaits'];
  if (names[0] === 'registration')
    return names.length === 1 ? ['enabled', 'initialAccessToken', 'endpoint', 'roles', 'metadata'] : [...roles];
  return [];
}

export function formatIssue(
  issue: z.core.$ZodIssue,
  input: unknown,
  knownKeys: (path: readonly PropertyKey[]) => string[],
): string[] {
  const at = formatPath(issue.path);
  const field = String(issue.path.at(-1) ?? '');
  const example = EXAMPLES[field] ? `, e.g. ${EXAMPLES[field]}` : '';
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const known = knownKeys(issue.path);
        const guess = closest(key, known);
        const where = formatPath([...issue.path, key]);
        return (
          `${where}: unknown ` +
          `field${guess ? `; did you mean "${guess}"?` : '.'}` +
          `${known.length ? ` Known fields: ${known.join(', ')}` : ''}`
        );
      });
    case 'invalid_type':
      if (valueAt(input, issue.path) === undefined) return [`${at}: is required${example}`];
      return [`${at}: must be ${issue.expected === 'int' ? 'an integer' : `a ${issue.expected}`}${example}`];
    case 'invalid_value':
      return [`${at}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
    case 'invalid_union': {
      // An optional discriminator (login.driver: auto when absent) is listed as null among the options: not a value.
      const listed = 'options' in issue && Array.isArray(issue.options) ? issue.options : undefined;
      const options = listed?.filter((v) => v !== null && v !== undefined);
      if (options) return [`${at}: must be one of ${options.map((v) => JSON.stringify(v)).join(', ')}`];
      return [
        `${at}: does not match any allowed shape: one of { "fill": "#username", "value": "\${user.username}" }, { ` +
          `"click": "button[type=submit]" }, { "check": "#remember" }, { "waitFor": "text=Welcome" }, each with ` +
          `optional "optional", "timeoutMs", "decision": "approve" | "deny"`,
      ];
    }
    case 'too_small':
      return [`${at}: ${issue.message}`];
    default:
      return [`${at}: ${issue.message}`];
  }
}
