/**
 * `npm run build` (and `prepack`): compiles the runtime code to dist/ (ES modules, .d.ts, source
 * maps) with tsconfig.build.json, then copies what tsc does not emit: the module hook for users'
 * scenario files (a plain .mjs). The bin is made executable.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
copyFileSync(
  new URL('../cli/resolve-hook.mjs', import.meta.url),
  new URL('../dist/cli/resolve-hook.mjs', import.meta.url),
);
chmodSync(new URL('../dist/cli/bin.js', import.meta.url), 0o755);
console.log('built dist/');
