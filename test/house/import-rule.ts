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
