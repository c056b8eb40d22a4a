/** Loading the user's own scenario files (`--scenarios GLOB`): TypeScript via tsx, or JavaScript. */
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { expandFileGlob } from '../harness/run/glob.ts';
import { type Scenario, isScenario } from '../harness/scenario/scenario.ts';
import { UsageError } from './command.ts';
import { errorMessage, isRecord } from '../protocol/guards.ts';

let hookRegistered = false;
/** Running from dist/ (the installed package) rather than from the TypeScript sources. */
const BUILT = import.meta.url.endsWith('.js');

/**
 * Make the bare name 'idp-conformance' resolve to this package, wherever the file lives; and,
 * when the package runs from dist/, let Node load TypeScript scenario files through tsx (from
 * the sources, the `idp-conformance` command or vitest already does).
 */
async function registerHooks(): Promise<void> {
  if (hookRegistered) return; // (under vitest, its alias resolves the name; the hook is harmless)
  hookRegistered = true;
  if (BUILT) (await import('tsx/esm/api')).register();
  register('./resolve-hook.mjs', import.meta.url);
}

export async function loadScenarioFiles(patterns: readonly string[], cwd = process.cwd()): Promise<Scenario[]> {
  if (patterns.length === 0) return [];
  await registerHooks();
  const scenarios: Scenario[] = [];
  for (const pattern of patterns) {
    const files = await expandFileGlob(pattern, cwd);
    if (files.length === 0) throw new UsageError(`--scenarios ${pattern}: no files match`);
    for (const file of files) {
      let mod: unknown;
      try {
        mod = await import(pathToFileURL(file).href);
      } catch (error) {
        throw new UsageError(`--scenarios: cannot load ${file}: ${errorMessage(error)}`);
      }
      const main = isRecord(mod) ? mod.default : undefined;
      const exported = Array.isArray(main) ? main : [main];
      const found = exported.filter(isScenario);
      if (found.length === 0) {
        throw new UsageError(
          `--scenarios: ${file} has no default export made with defineScenario({...}) (import it from ` +
            `'idp-conformance')`,
        );
      }
      scenarios.push(...found);
    }
  }
  return scenarios;
}

/** Built-in and extra scenarios together; a repeated id is a usage error. */
export function mergeScenarios(builtIn: readonly Scenario[], extra: readonly Scenario[]): Scenario[] {
  const seen = new Set(builtIn.map((s) => s.id));
  for (const s of extra) {
    if (seen.has(s.id))
      throw new UsageError(`--scenarios: the id "${s.id}" is already taken; give your scenario another id`);
    seen.add(s.id);
  }
  return [...builtIn, ...extra];
}
