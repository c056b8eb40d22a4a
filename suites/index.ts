/**
 * The built-in catalog. One file per scenario: id `area.name` ⇔ `suites/area/name.ts`, each
 * default-exporting `defineScenario(...)`. The files are found on disk, so a new scenario is one
 * new file and nothing else; a file whose id does not match its path is refused at load time.
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HarnessError } from '../harness/failures.ts';
import { isScenario, type Scenario } from '../harness/scenario.ts';

/** Report order: the order a reader meets the protocol in (DESIGN §7). Unlisted areas come last. */
export const AREA_ORDER = [
  'discovery', 'jwks', 'code', 'pkce', 'redirect', 'refresh', 'client-credentials', 'client-auth',
  'scope', 'id-token', 'jwt', 'device', 'token-exchange', 'implicit', 'password', 'token', 'userinfo',
  'revocation', 'introspection', 'tokens', 'consent', 'par', 'dpop', 'mixup', 'resource', 'entropy', 'headers', 'race', 'browser',
] as const;

/** Folders under suites/ that hold no scenarios. */
const NOT_AREAS = new Set(['checks']);

const SUITES = import.meta.dirname;

async function loadCatalog(): Promise<Scenario[]> {
  const files: Array<{ area: string; name: string; path: string }> = [];
  for (const area of readdirSync(SUITES, { withFileTypes: true })) {
    if (!area.isDirectory() || NOT_AREAS.has(area.name)) continue;
    for (const file of readdirSync(join(SUITES, area.name))) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      files.push({ area: area.name, name: basename(file, '.ts'), path: join(SUITES, area.name, file) });
    }
  }
  const rank = (area: string) => {
    const i = (AREA_ORDER as readonly string[]).indexOf(area);
    return i === -1 ? AREA_ORDER.length : i;
  };
  files.sort((a, b) => rank(a.area) - rank(b.area) || a.area.localeCompare(b.area) || a.name.localeCompare(b.name));
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(file.path).href)) as { default?: unknown };
    const expected = `${file.area}.${file.name}`;
    if (!isScenario(module.default)) {
      throw new HarnessError(`suites/${file.area}/${file.name}.ts must default-export defineScenario({ id: '${expected}', ... })`);
    }
    if (module.default.id !== expected) {
      throw new HarnessError(`suites/${file.area}/${file.name}.ts declares id "${module.default.id}"; its path makes it "${expected}"`);
    }
    scenarios.push(module.default);
  }
  return scenarios;
}

export const BUILT_IN_SCENARIOS: readonly Scenario[] = Object.freeze(await loadCatalog());
