import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The test groups: every test file belongs to exactly one (test/test-groups.test.ts checks it).
 * `npm test` runs them all in one vitest run, in parallel; `npm run test:<group>` runs one.
 * - matrix: full-catalog runs (the flaw matrix, and the CLI, library and store runs of the whole catalog)
 * - browser: anything that launches Chromium
 * - interop: the catalog against real IdPs (test/interop)
 * - system: the product as a user runs it, in child processes: the CLI against a hostile IdP
 *   (test/hostile, but its browser file), the packed tarball in a consumer project, `serve` as a
 *   server process, the GitHub Action's script
 * - unit: everything else, in-process; kept under 60 s on a 2-core machine
 */
const TEST_GROUPS: Record<string, readonly string[]> = {
  matrix: [
    'test/matrix/**/*.test.ts',
    'test/cli/run.test.ts',
    'test/cli/serve.test.ts',
    'test/harness/library.test.ts',
    'test/harness/redaction.test.ts',
    'test/reference/redis-instances.test.ts',
  ],
  browser: [
    'test/browser/**/*.test.ts',
    'test/login/drivers.test.ts',
    'test/login/portal-pages.test.ts',
    'test/login/spa-pages.test.ts',
    'test/login/glewlwyd-pages.test.ts',
    'test/login/browser-catalog.test.ts',
    'test/login/browser-contexts.test.ts',
    'test/login/assets.test.ts',
    'test/login/served-headers.test.ts',
    'test/hostile/7-chromium.test.ts',
    'test/hostile/9-https-only-browser.test.ts',
  ],
  interop: ['test/interop/**/*.test.ts'],
  // The reference server over HTTP: endpoint by endpoint, with fuzzing and property runs (minutes).
  reference: ['test/reference/**/*.test.ts'],
  system: [
    'test/hostile/**/*.test.ts',
    'test/package/**/*.test.ts',
    'test/cli/serve-*.test.ts',
    'test/cli/action.test.ts',
    'test/cli/commands.test.ts',
    'test/cli/register.test.ts',
    'test/bench/reference-build.test.ts',
  ],
};

const ALL = 'test/**/*.test.ts';

/**
 * A group's files: its own patterns, less those of the groups named before it (system less the
 * browser file of test/hostile).
 */
function group(name: string) {
  const names = Object.keys(TEST_GROUPS);
  const before = names.slice(0, names.indexOf(name)).flatMap((n) => TEST_GROUPS[n] ?? []);
  // The interop files start real IdPs (Debian services, npm products): one at a time, after the other groups.
  const serial = name === 'interop' ? { maxWorkers: 1 } : {};
  return {
    extends: true as const,
    test: { name, include: [...(TEST_GROUPS[name] ?? [])], exclude: before, ...serial },
  };
}

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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: on the 2-core machines this runs on (CI's too), one file at
    // a time, though most files wait on servers, browsers and child processes more than they compute. Two at least;
    // every test holds on a loaded machine (no timing assertions, generous timeouts).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      ...Object.keys(TEST_GROUPS).map(group),
      {
        extends: true,
        test: { name: 'unit', include: [ALL], exclude: Object.values(TEST_GROUPS).flat() },
      },
    ],
  },
});
