/**
 * What the command line tells a new user beyond the run itself: a --only/--skip pattern that meant
 * an area, how few scenarios an issuer URL alone can run, whether a planted flaw needs the legacy
 * client, and the command `init` should print as the user can type it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { globToRegExp } from '../harness/run/glob.ts';
import type { Scenario } from '../harness/scenario/scenario.ts';
import { isRecord } from '../protocol/guards.ts';

/** "1 scenario", "2 scenarios". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Scenario ids renamed to the catalog's names (old id → new id), so an old --only or --skip names the new one. */
export const RENAMED_SCENARIOS: Readonly<Record<string, string>> = {
  'pkce.method-absent': 'pkce.default-method',
  'registration.access-token-required': 'registration.management-auth',
  'registration.delete-revokes-client': 'registration.deleted-client',
  'registration.redirect-uri-fragment': 'registration.fragment-refused',
  'registration.returns-metadata': 'registration.metadata-returned',
};

/** Planted flaws renamed to the catalog's names (old name → new name). */
export const RENAMED_FLAWS: Readonly<Record<string, string>> = {
  'pkce-method-absent-unchecked': 'pkce-default-method-ignored',
  'registration-fragment-accepted': 'registration-accepts-fragment',
  'registration-metadata-not-returned': 'registration-drops-metadata',
  'registration-token-unchecked': 'registration-management-open',
  'registration-secret-expiry-missing': 'registration-no-secret-expiry',
};

/** ", now called X" for a renamed flaw, else nothing: the tail of an unknown-flaw error. */
export function renamedFlawHint(name: string): string {
  const now = RENAMED_FLAWS[name];
  return now ? ` (renamed: it is now called "${now}")` : '';
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
    const renamed = RENAMED_SCENARIOS[pattern];
    if (renamed) {
      hints.push(`${option} ${pattern}: the scenario was renamed; use ${option} ${renamed}`);
      continue;
    }
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
    const claimants = scenarios.filter((s) => (s.catches ?? []).some((caught) => caught === flaw));
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
function nearestPackage(dir: string): Record<string, unknown> | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const file = path.join(at, 'package.json');
    if (existsSync(file)) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
        return isRecord(parsed) ? parsed : undefined;
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
  const here = pkg?.name === 'idp-conformance' && isRecord(pkg.scripts) && typeof pkg.scripts.conformance === 'string';
  return here ? `npm run conformance -- --target ${quoted}` : `npx idp-conformance run --target ${quoted}`;
}
