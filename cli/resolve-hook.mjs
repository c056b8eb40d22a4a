// Module hooks for the user's own scenario files (`run --scenarios`), which may live outside any
// project that installs this package:
// - the bare name 'idp-conformance' resolves to this copy of the package (its TypeScript sources
//   in the repository; dist/index.js in the built package, where this file is copied to dist/cli/);
// - a TypeScript file outside a "type": "module" package is still loaded as an ES module (a
//   scenario file uses import/export), instead of being compiled to CommonJS.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../index.ts', import.meta.url);
const entry = existsSync(fileURLToPath(sources)) ? sources.href : new URL('../index.js', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'idp-conformance') return { url: entry, shortCircuit: true };
  const resolved = await next(specifier, context);
  if (resolved.url.startsWith('file:') && /\.ts$/.test(resolved.url) && !resolved.url.includes('/node_modules/')) {
    return { ...resolved, format: 'module' };
  }
  return resolved;
}
