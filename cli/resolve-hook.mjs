// Module resolve hook: lets scenario files written outside any project that installs the
// package `import { defineScenario } from 'idp-conformance'` — the name resolves to this copy.
const entry = new URL('../index.ts', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'idp-conformance') return { url: entry, shortCircuit: true };
  return next(specifier, context);
}
