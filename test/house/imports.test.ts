/**
 * The one-way import rule (docs/ARCHITECTURE.md) holds on every tracked .ts file, and the checker
 * catches each kind of violation on a synthetic import graph (so that an empty list means something).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  IMPORT_RULES,
  type ImportGraph,
  importCircles,
  importsOf,
  importViolations,
  repositoryImportGraph,
} from './import-rule.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the one-way import rule', () => {
  it('holds on the repository', () => {
    const graph = repositoryImportGraph(ROOT);
    // The graph is really read: the files and edges the rule is about are in it.
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('harness/scenario/scenario.ts')).toContain('../../protocol/flaw-names.ts');
    expect(graph.get('reference/flaws.ts')).toContain('../protocol/flaw-names.ts');
    expect(importViolations(graph)).toEqual([]);
  }, 60_000);

  it('reads static, type-only, re-export, dynamic and require imports, not comments or strings', () => {
    const source = [
      "import { a } from '../harness/a.ts';",
      "import type { B } from '../suites/b.ts';",
      "export { c } from './c.ts';",
      "export * from '../reports/d.ts';",
      "const e = await import('../reference/e.ts');",
      "const f = require('node:fs');",
      "// import { g } from '../cli/g.ts';",
      'const h = "import { h } from \'../cli/h.ts\'";',
    ].join('\n');
    expect(importsOf(source)).toEqual([
      '../harness/a.ts',
      '../suites/b.ts',
      './c.ts',
      '../reports/d.ts',
      '../reference/e.ts',
      'node:fs',
    ]);
  });

  it('reports every forbidden folder edge, whatever the depth of the importing file', () => {
    const cases: [string, string][] = [
      ['harness/login/form.ts', '../../suites/x.ts'],
      ['harness/a.ts', '../reports/x.ts'],
      ['harness/a.ts', '../reference/x.ts'],
      ['harness/a.ts', '../cli/x.ts'],
      ['suites/pkce/a.ts', '../../reference/pkce.ts'],
      ['suites/a.ts', '../reports/x.ts'],
      ['suites/a.ts', '../cli/x.ts'],
      ['generators/a.ts', '../suites/x.ts'],
      ['generators/a.ts', '../reference/x.ts'],
      ['generators/a.ts', '../cli/x.ts'],
      ['reports/a.ts', '../suites/x.ts'],
      ['reports/a.ts', '../reference/x.ts'],
      ['reports/a.ts', '../cli/x.ts'],
      ['reference/http/a.ts', '../../harness/x.ts'],
      ['reference/a.ts', '../suites/x.ts'],
      ['reference/a.ts', '../reports/x.ts'],
      ['reference/a.ts', '../cli/x.ts'],
      ['protocol/a.ts', '../harness/x.ts'],
      ['protocol/a.ts', '../generators/x.ts'],
      ['protocol/a.ts', '../index.ts'],
    ];
    for (const [file, specifier] of cases) {
      const problems = importViolations(new Map([[file, [specifier]]]));
      expect(problems, `${file} → ${specifier}`).toHaveLength(1);
      expect(problems[0]).toContain(`${file} imports`);
    }
  });

  it('lets the allowed edges through', () => {
    const graph: ImportGraph = new Map([
      ['harness/a.ts', ['../protocol/pkce.ts', './b.ts', 'jose', 'node:crypto']],
      ['suites/pkce/a.ts', ['../../harness/scenario/scenario.ts', '../../generators/index.ts', '../checks/index.ts']],
      ['reports/a.ts', ['../harness/results.ts']],
      ['reference/a.ts', ['../protocol/jws.ts', 'koa']],
      ['protocol/a.ts', ['./b.ts', 'node:crypto', 'jose', 'jose/errors']],
      ['cli/a.ts', ['../reference/index.ts', '../suites/index.ts', '../reports/index.ts']],
      ['test/a.test.ts', ['../reference/index.ts']],
    ]);
    expect(importViolations(graph)).toEqual([]);
  });

  it('lets no file outside test/ import from test/', () => {
    const problems = importViolations(
      new Map([
        ['interop/oidc-provider/index.ts', ['../../test/support/oidc-provider.ts']],
        ['scripts/redis-server.ts', ['../test/support/ports.ts']],
        ['bench/browser.ts', ['../interop/oidc-provider/provider.ts']],
        ['test/matrix/a.test.ts', ['../support/ports.ts']],
      ]),
    );
    expect(problems).toEqual([
      'interop/oidc-provider/index.ts imports test/support/oidc-provider.ts: only tests may import test/ (move what ' +
        'it needs out of test/)',
      'scripts/redis-server.ts imports test/support/ports.ts: only tests may import test/ (move what it needs out ' +
        'of test/)',
    ]);
  });

  it('limits protocol/ to node built-ins and jose', () => {
    const problems = importViolations(new Map([['protocol/a.ts', ['zod', '@koa/router', 'crypto']]]));
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('protocol/a.ts imports the package zod');
  });

  it('honours a stated exception and reports one that matches nothing', () => {
    const exception = { from: 'harness/a.ts', to: 'reports/x.ts', reason: 'a test of the mechanism' };
    const graph: ImportGraph = new Map([['harness/a.ts', ['../reports/x.ts']]]);
    expect(importViolations(graph, IMPORT_RULES, [exception])).toEqual([]);
    expect(importViolations(new Map(), IMPORT_RULES, [exception])).toEqual([
      'the exception harness/a.ts → reports/x.ts matches no import any more: remove it',
    ]);
  });
});

describe('no import circle between files', () => {
  it('holds on the repository', () => {
    const graph = repositoryImportGraph(ROOT);
    expect(graph.size).toBeGreaterThan(300);
    expect(importCircles(graph)).toEqual([]);
  }, 60_000);

  it('finds a circle of two files, of three through type-only imports, and a file that imports itself', () => {
    const graph: ImportGraph = new Map([
      ['harness/scenario.ts', ['./device.ts', '../protocol/a.ts']],
      ['harness/device.ts', ['./scenario.ts']],
      ['reference/options.ts', ['./fixture.ts']],
      ['reference/fixture.ts', ['./endpoints/authorize.ts']],
      ['reference/endpoints/authorize.ts', ['../options.ts']],
      ['reports/self.ts', ['./self.ts']],
      ['protocol/a.ts', []],
    ]);
    expect(importCircles(graph)).toEqual([
      ['harness/device.ts', 'harness/scenario.ts'],
      ['reference/endpoints/authorize.ts', 'reference/fixture.ts', 'reference/options.ts'],
      ['reports/self.ts'],
    ]);
  });

  it('reports nothing for a graph with shared imports but no way back, and ignores packages', () => {
    const graph: ImportGraph = new Map([
      ['cli/run.ts', ['../harness/runner.ts', '../reports/index.ts', 'koa']],
      ['reports/index.ts', ['../harness/runner.ts']],
      ['harness/run/runner.ts', ['../protocol/a.ts', 'node:fs']],
      ['protocol/a.ts', ['jose']],
    ]);
    expect(importCircles(graph)).toEqual([]);
  });

  it('walks a long chain without overflowing and finds the circle closed at its end', () => {
    const files = Array.from({ length: 20_000 }, (_, i) => `harness/f${i}.ts`);
    const graph = new Map(files.map((f, i) => [f, i + 1 < files.length ? [`./f${i + 1}.ts`] : ['./f0.ts']]));
    const circles = importCircles(graph);
    expect(circles).toHaveLength(1);
    expect(circles[0]).toHaveLength(20_000);
  });
});
