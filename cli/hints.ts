/**
 * What the command line tells a new user beyond the run itself: a --only/--skip pattern that meant
 * an area, how few scenarios an issuer URL alone can run, whether a planted flaw needs the legacy
 * client, and the command `init` should print as the user can type it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { globToRegExp } from '../harness/glob.ts';
import type { Scenario } from '../harness/scenario.ts';

/** "1 scenario", "2 scenarios". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * Patterns of --only or --skip that match no id but are an area or an id prefix (`pkce`, `pk`,
 * `pkce.`): one line each with the glob the user probably meant ("did you mean pkce.*?").
 */
export function patternHints(ids: readonly string[], patterns: readonly string[], option: string): string[] {
  const hints: string[] = [];
  for (const pattern of patterns) {
    const re = globToRegExp(pattern);
    if (ids.some((id) => re.test(id))) continue;
    const prefix = pattern.replace(/\*+$/, '');
    if (prefix === '' || /[*?{]/.test(prefix)) continue;
    const area = prefix.replace(/\.$/, '');
    const suggestion = ids.some((id) => id.startsWith(`${area}.`))
      ? `${area}.*`
      : ids.some((id) => id.startsWith(prefix))
        ? `${prefix}*`
        : undefined;
    if (suggestion) hints.push(`${option} ${pattern} matches no scenario id; did you mean ${option} '${suggestion}'?`);
  }
  return hints;
}

/**
 * Whether a planted flaw can only be caught through the legacy client (password and implicit
 * grants): some scenario claims it and every claimant needs the `legacy` role. The embedded
 * reference seeds that client only on request, so such a flaw would otherwise be skipped.
 */
export function needsLegacyClient(flaws: readonly string[], scenarios: readonly Scenario[]): boolean {
  return flaws.some((flaw) => {
    const claimants = scenarios.filter((s) => ((s.catches ?? []) as readonly string[]).includes(flaw));
    return claimants.length > 0 && claimants.every((s) => (s.requires?.roles ?? []).includes('legacy'));
  });
}

/**
 * For an issuer URL without a config: how many of the selected scenarios need a client or a user,
 * which the URL cannot give, and what to do about it. Undefined when every one can run.
 */
export function clientlessNotice(selected: readonly Scenario[]): string | undefined {
  const needing = selected.filter((s) => (s.requires?.roles?.length ?? 0) > 0 || s.requires?.user === true).length;
  if (needing === 0) return undefined;
  const left = selected.length - needing;
  return (
    `no clients configured: an issuer URL alone gives no client and no user, so ${needing} of ` +
    `${count(selected.length, 'scenario')} need one and will be skipped; at most ${left} can run ` +
    '(the discovery-level checks). For the rest, write a target config with `idp-conformance init` ' +
    'and pass it with --target FILE.'
  );
}

/** The nearest package.json at or above `dir`, parsed, or undefined. */
function nearestPackage(dir: string): { name?: unknown; scripts?: Record<string, unknown> } | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const file = path.join(at, 'package.json');
    if (existsSync(file)) {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; scripts?: Record<string, unknown> };
      } catch {
        return undefined;
      }
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * The command that runs a target file, as the user can type it where they are: inside this
 * repository (its package.json, with the `conformance` script) `npm run conformance -- --target
 * FILE`; anywhere else (npx, an installed bin) `npx idp-conformance run --target FILE`.
 */
export function runCommandFor(file: string, cwd: string = process.cwd()): string {
  const shown = path.relative(cwd, file) || file;
  const quoted = /^[\w./@:+-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
  const pkg = nearestPackage(cwd);
  const here = pkg?.name === 'idp-conformance' && typeof pkg.scripts?.conformance === 'string';
  return here ? `npm run conformance -- --target ${quoted}` : `npx idp-conformance run --target ${quoted}`;
}
