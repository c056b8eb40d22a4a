/**
 * `${ENV}` in the target config: every string's `${NAME}` replaced by the environment variable
 * (`$${` a literal `${`), `${user.username}` and `${user.password}` left for login.steps, and a
 * message naming the field for a reference that is malformed, unset or out of place.
 */
import { formatPath } from './issues.ts';

/** `${user.username}` and `${user.password}`: left for the browser driver to fill in, in login.steps only. */
const USER_PLACEHOLDER = /^user\.(username|password)$/;

/** Replace `${NAME}` with environment variables everywhere; `$${` is a literal `${`. */
export function interpolateEnv(
  value: unknown,
  env: NodeJS.ProcessEnv,
  issues: string[],
  path: PropertyKey[] = [],
): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$?\$\{([^}]*)\}/g, (match, name: string) => {
      if (match.startsWith('$$')) return match.slice(1);
      if (USER_PLACEHOLDER.test(name)) {
        if (path[0] === 'login' && path[1] === 'steps') return match;
        issues.push(
          `${formatPath(path)}: "\${${name}}" stands for the configured user only in login.steps values; write the ` +
            `value here, or \${NAME} for an environment variable`,
        );
        return match;
      }
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        issues.push(
          `${formatPath(path)}: "\${${name}}" is not a valid environment variable reference; use \${NAME} with ` +
            `letters, digits and _ (write $\${ for a literal \${)`,
        );
        return match;
      }
      const v = env[name];
      if (v === undefined) {
        issues.push(
          `${formatPath(path)}: environment variable ${name} is not set; export ${name} or write the value ` +
            `into the file`,
        );
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
