/**
 * This package's name and version, read from its package.json: one folder up from the sources,
 * two from dist/ (the built package), so the nearest package.json of this name is the one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const packageJson = z.looseObject({ name: z.string().optional(), version: z.string().optional() });

function find(): { name: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = packageJson.safeParse(JSON.parse(readFileSync(file, 'utf8')));
      if (pkg.success && pkg.data.name === 'idp-conformance' && pkg.data.version)
        return { name: pkg.data.name, version: pkg.data.version };
    }
    const up = dirname(dir);
    if (up === dir) return { name: 'idp-conformance', version: '0.0.0' };
    dir = up;
  }
}

export const PACKAGE = find();
/** The directory of this package (where its package.json is). */
export const PACKAGE_ROOT = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();
