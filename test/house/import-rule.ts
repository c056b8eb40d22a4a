/**
 * The one-way import rule (docs/ARCHITECTURE.md, "protocol/"): which top-level folder may import
 * which. Imports are read with the TypeScript compiler's own pre-processor (`ts.preProcessFile`:
 * static imports, `export … from`, `import type`, dynamic `import()` and `require`), not regexes.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A folder's rule: the folders of ours it must not import, or (protocol/) the only packages it may. */
export interface FolderRule {
  forbidden: readonly string[];
  /** When set, every import must be relative within the folder, a node: built-in or one of these packages. */
  onlyPackages?: readonly string[];
  why: string;
}

export const OURS = ['protocol', 'harness', 'suites', 'generators', 'reports', 'reference', 'cli'] as const;

export const IMPORT_RULES: Readonly<Record<string, FolderRule>> = {
  protocol: {
    forbidden: OURS.filter((f) => f !== 'protocol'),
    onlyPackages: ['jose'],
    why: 'protocol facts import nothing of ours, so that every folder may import them',
  },
  harness: {
    forbidden: ['suites', 'reports', 'reference', 'cli'],
    why: 'the runner is handed its scenarios; reporters read its results; the target is foreign',
  },
  suites: {
    forbidden: ['reference', 'reports', 'cli'],
    why: 'scenarios see the target only through ctx, never the reference',
  },
  generators: {
    forbidden: ['suites', 'reference', 'cli'],
    why: 'generators are data; scenarios use them, not the other way round',
  },
  reports: {
    forbidden: ['suites', 'reference', 'cli'],
    why: 'reporters read only the result types',
  },
  reference: {
    forbidden: ['harness', 'suites', 'reports', 'cli'],
    why: 'the reference is a target like any other and knows nothing of the harness',
  },
};

/**
 * Known exceptions: `from` (a file) may import `to` (a file) although the rule forbids it. Each
 * names its reason; an exception that no longer matches an import is itself reported.
 */
export interface ImportException {
  from: string;
  to: string;
  reason: string;
}

export const IMPORT_EXCEPTIONS: readonly ImportException[] = [];

/** file → the module specifiers it imports, paths relative to the repository root with `/`. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export function importsOf(sourceText: string): string[] {
  return ts.preProcessFile(sourceText, true, true).importedFiles.map((f) => f.fileName);
}

const topFolder = (file: string): string => file.split('/')[0] ?? '';

/** The repository file a relative specifier names, or undefined for a package. */
function resolved(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
}

/** Every import that breaks the rules, as one sentence each; empty when the graph keeps them. */
export function importViolations(
  graph: ImportGraph,
  rules: Readonly<Record<string, FolderRule>> = IMPORT_RULES,
  exceptions: readonly ImportException[] = IMPORT_EXCEPTIONS,
): string[] {
  const problems: string[] = [];
  const used = new Set<ImportException>();
  for (const [file, specifiers] of graph) {
    const folder = topFolder(file);
    // Shipped and tooling code (interop/, bench/, scripts/, …) never reaches into the tests' own helpers.
    if (folder !== 'test') {
      for (const specifier of specifiers) {
        const target = resolved(file, specifier);
        if (target !== undefined && topFolder(target) === 'test')
          problems.push(`${file} imports ${target}: only tests may import test/ (move what it needs out of test/)`);
      }
    }
    const rule = rules[folder];
    if (!rule) continue;
    for (const specifier of specifiers) {
      const target = resolved(file, specifier);
      if (target === undefined) {
        const allowed = specifier.startsWith('node:') || rule.onlyPackages?.includes(packageName(specifier));
        if (rule.onlyPackages && !allowed)
          problems.push(`${file} imports the package ${specifier}; ${folder}/ may import only ${allowedList(rule)}`);
        continue;
      }
      const to = topFolder(target);
      const outside = rule.onlyPackages !== undefined && to !== folder;
      if (!(outside || rule.forbidden.includes(to))) continue;
      const exception = exceptions.find((e) => e.from === file && e.to === target);
      if (exception) {
        used.add(exception);
        continue;
      }
      problems.push(`${file} imports ${target}: ${folder}/ must not import ${to}/ (${rule.why})`);
    }
  }
  for (const e of exceptions)
    if (!used.has(e)) problems.push(`the exception ${e.from} → ${e.to} matches no import any more: remove it`);
  return problems;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

const allowedList = (rule: FolderRule) => ['node: built-ins', ...(rule.onlyPackages ?? [])].join(', ');

/** The import graph of every .ts file git tracks in `root` (untracked files too, unless ignored). */
export function repositoryImportGraph(root: string): Map<string, string[]> {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.ts'], {
    cwd: root,
    encoding: 'utf8',
  });
  const graph = new Map<string, string[]>();
  for (const file of listed.split('\n').filter(Boolean)) {
    let text: string;
    try {
      text = readFileSync(path.join(root, file), 'utf8');
    } catch {
      continue; // listed by git but deleted in the working tree
    }
    graph.set(file, importsOf(text));
  }
  return graph;
}

/**
 * Every import circle between files: each strongly connected component of more than one file (or a
 * file that imports itself), as its files sorted, found with Tarjan's algorithm. Type-only imports
 * count: a reader still has to read both files to understand either.
 */
export function importCircles(graph: ImportGraph): string[][] {
  const edges = new Map<string, string[]>();
  for (const [file, specifiers] of graph) {
    const targets = specifiers
      .map((s) => resolved(file, s))
      .filter((t): t is string => t !== undefined && graph.has(t));
    edges.set(file, targets);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  let next = 0;
  // Iterative, so that a deep import chain cannot overflow the call stack.
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: { file: string; i: number }[] = [{ file: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { file: string; i: number };
      const targets = edges.get(frame.file) ?? [];
      if (frame.i < targets.length) {
        const to = targets[frame.i++] as string;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ file: to, i: 0 });
        } else if (onStack.has(to)) low.set(frame.file, Math.min(low.get(frame.file) ?? 0, index.get(to) ?? 0));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.file, Math.min(low.get(parent.file) ?? 0, low.get(frame.file) ?? 0));
      if (low.get(frame.file) !== index.get(frame.file)) continue;
      const component: string[] = [];
      for (;;) {
        const file = stack.pop() as string;
        onStack.delete(file);
        component.push(file);
        if (file === frame.file) break;
      }
      const selfImport = component.length === 1 && targets.includes(frame.file);
      if (component.length > 1 || selfImport) circles.push(component.sort());
    }
  }
  return circles.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}
