import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Scenario files outside the repo import the package by name; the CLI maps the name with a
    // module hook (cli/resolve-hook.mjs), vitest with this alias.
    alias: [
      { find: /^idp-conformance$/, replacement: fileURLToPath(new URL('./index.ts', import.meta.url)) },
      {
        find: /^idp-conformance\/reference$/,
        replacement: fileURLToPath(new URL('./reference/index.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
