/**
 * No folder loops in reference/: the folders of reference/ (endpoints/, grants/, http/, store/, views/, and its
 * top level) import each other one way only, so that each can be read knowing only the ones below it. A file-level
 * import circle is caught by imports.test.ts; this catches the loop between folders that no file circle shows
 * (e.g. http/bearer.ts → context.ts → tokens.ts → scopes.ts → http/errors.ts: http/ and the top level imported
 * each other).
 *
 * The top level holds two levels: the assembly (server.ts, index.ts, fixture.ts, target-config.ts: the files no
 * subfolder reaches, which put the endpoints together) above every folder, and the rest (context.ts, tokens.ts,
 * options.ts, …: what the subfolders read) below them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ImportGraph, importCircles, repositoryImportGraph } from './import-rule.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REFERENCE = 'reference';
const ASSEMBLY = 'reference (assembly)';

/** The repository file a relative specifier names, or undefined for a package. */
function target(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
}

const inReference = (file: string) => file.startsWith(`${REFERENCE}/`);

/** reference/'s file-to-file edges (both ends in reference/). */
function referenceEdges(graph: ImportGraph): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const [file, specifiers] of graph) {
    if (!inReference(file)) continue;
    const targets = specifiers.map((s) => target(file, s)).filter((t): t is string => t !== undefined);
    edges.set(
      file,
      targets.filter((t) => inReference(t) && graph.has(t)),
    );
  }
  return edges;
}

/** The top-level files some subfolder file reaches through imports: the ground the folders stand on. */
function reachedFromFolders(edges: ReadonlyMap<string, readonly string[]>): Set<string> {
  const seen = new Set<string>();
  const work = [...edges.keys()].filter((f) => path.posix.dirname(f) !== REFERENCE);
  while (work.length > 0) {
    const file = work.pop();
    if (file === undefined) break;
    for (const to of edges.get(file) ?? []) {
      if (seen.has(to)) continue;
      seen.add(to);
      work.push(to);
    }
  }
  return new Set([...seen].filter((f) => path.posix.dirname(f) === REFERENCE));
}

/** Each folder (level) of reference/ → the levels its files import. */
function referenceFolderGraph(graph: ImportGraph): Map<string, Set<string>> {
  const edges = referenceEdges(graph);
  const ground = reachedFromFolders(edges);
  const level = (file: string) => {
    const folder = path.posix.dirname(file);
    return folder === REFERENCE && !ground.has(file) ? ASSEMBLY : folder;
  };
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of edges) {
    const from = level(file);
    const set = folders.get(from) ?? new Set<string>();
    folders.set(from, set);
    for (const to of targets) if (level(to) !== from) set.add(level(to));
  }
  return folders;
}

/** Every folder loop: the levels of reference/ that import each other in a circle, each sorted. */
function referenceFolderLoops(graph: ImportGraph): string[][] {
  // A level is one node of importCircles' graph: a stand-in file in its folder, importing the others' stand-ins.
  const node = (level: string) => `${level === ASSEMBLY ? `${REFERENCE}/(assembly)` : level}/.level`;
  const name = new Map<string, string>();
  const nodes = new Map<string, string[]>();
  for (const [from, targets] of referenceFolderGraph(graph)) {
    name.set(node(from), from);
    const dir = path.posix.dirname(node(from));
    nodes.set(
      node(from),
      [...targets].map((to) => `./${path.posix.relative(dir, node(to))}`),
    );
    for (const to of targets) if (!nodes.has(node(to))) nodes.set(node(to), []);
    for (const to of targets) name.set(node(to), to);
  }
  return importCircles(nodes).map((circle) => circle.map((n) => name.get(n) ?? n).sort());
}

describe('reference/ folders', () => {
  it('import each other one way only on the repository', () => {
    const graph = repositoryImportGraph(ROOT);
    const folders = referenceFolderGraph(graph);
    // The graph is really read: the edges the rule is about are in it.
    expect(folders.get('reference/endpoints')).toContain('reference/http');
    expect(folders.get('reference/endpoints')).toContain('reference/grants');
    expect(folders.get('reference/http')).toContain(REFERENCE);
    expect(folders.get(ASSEMBLY)).toContain('reference/endpoints');
    expect(referenceFolderLoops(graph)).toEqual([]);
  }, 60_000);

  it('finds a loop between two subfolders', () => {
    const graph: ImportGraph = new Map([
      ['reference/grants/implicit.ts', ['../endpoints/authorization-response.ts', './issue.ts']],
      ['reference/grants/issue.ts', []],
      ['reference/endpoints/authorization-response.ts', []],
      ['reference/endpoints/interaction.ts', ['../grants/implicit.ts']],
    ]);
    expect(referenceFolderLoops(graph)).toEqual([['reference/endpoints', 'reference/grants']]);
  });

  it('finds a loop between the top level and a subfolder, through several files', () => {
    const graph: ImportGraph = new Map([
      ['reference/context.ts', ['./tokens.ts']],
      ['reference/tokens.ts', ['./scopes.ts']],
      ['reference/scopes.ts', ['./http/errors.ts']],
      ['reference/http/errors.ts', []],
      ['reference/http/bearer.ts', ['../context.ts', './errors.ts']],
    ]);
    expect(referenceFolderLoops(graph)).toEqual([['reference', 'reference/http']]);
  });

  it('lets the assembly import every folder, and the folders the top level below them', () => {
    const graph: ImportGraph = new Map([
      ['reference/server.ts', ['./endpoints/index.ts', './http/errors.ts', './context.ts']],
      ['reference/index.ts', ['./server.ts', './oauth-error.ts']],
      ['reference/context.ts', ['./tokens.ts']],
      ['reference/tokens.ts', []],
      ['reference/oauth-error.ts', []],
      ['reference/endpoints/index.ts', ['./token.ts']],
      ['reference/endpoints/token.ts', ['../context.ts', '../http/errors.ts', '../oauth-error.ts']],
      ['reference/http/errors.ts', ['../oauth-error.ts']],
      ['harness/a.ts', ['../reference/server.ts']],
    ]);
    expect(referenceFolderLoops(graph)).toEqual([]);
    expect(referenceFolderGraph(graph).get(ASSEMBLY)).toEqual(
      new Set(['reference/endpoints', 'reference/http', REFERENCE]),
    );
  });

  it('counts a top-level file a subfolder reaches as the ground, not the assembly', () => {
    // fixture.ts imports endpoints/; once endpoints/ reaches fixture.ts, that is a loop.
    const graph: ImportGraph = new Map([
      ['reference/fixture.ts', ['./endpoints/authorize.ts']],
      ['reference/endpoints/authorize.ts', ['../options.ts']],
      ['reference/options.ts', ['./fixture.ts']],
    ]);
    expect(referenceFolderLoops(graph)).toEqual([['reference', 'reference/endpoints']]);
  });
});
