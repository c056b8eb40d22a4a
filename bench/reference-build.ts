/**
 * The reference as the published package runs it: compiled by tsc (tsconfig.build.json, as `npm run build` does), not
 * transformed on load by tsx. tsx keeps function names with a helper (`__name`) that runs on every closure made per
 * request, a cost the published build does not have. The output goes under node_modules/.cache, where its imports of
 * koa, jose, … resolve to the project's node_modules, and leaves dist/ alone.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const BENCH_BUILD_DIR = fileURLToPath(new URL('../node_modules/.cache/idp-conformance-bench', import.meta.url));

/** Compiles the runtime code to BENCH_BUILD_DIR and returns the URL of the compiled reference/index.js. */
export function buildReferenceForBench(): string {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const args = [tsc, '-p', 'tsconfig.build.json', '--outDir', BENCH_BUILD_DIR, '--declaration', 'false'];
  const built = spawnSync(process.execPath, [...args, '--sourceMap', 'false'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0)
    throw new Error(`compiling the reference for the bench failed (tsc exit ${built.status}):\n${built.stdout}`);
  return pathToFileURL(`${BENCH_BUILD_DIR}/reference/index.js`).href;
}
