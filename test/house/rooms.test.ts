/**
 * The engine's rooms hold (test/house/rooms.ts): every harness/ file is in a room, each room imports only the rooms
 * below it, harness/ has few entries at its top level, and no engine file is over ENGINE_MAX_LINES lines. Each check
 * is also shown to catch what it is about on a synthetic case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ImportGraph, repositoryImportGraph } from './import-rule.ts';
import { ENGINE_MAX_LINES, layerViolations, ROOMS, roomViolations, TOP_LEVEL_MAX } from './rooms.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe("the engine's rooms", () => {
  it('hold on the repository: every file in a room, every import to a room below', () => {
    const graph = repositoryImportGraph(ROOT);
    const engine = [...graph.keys()].filter((f) => f.startsWith('harness/'));
    expect(engine.length).toBeGreaterThan(60);
    expect(roomViolations(graph)).toEqual([]);
  }, 60_000);

  it('are layers: a room may import only rooms listed before it', () => {
    expect(layerViolations()).toEqual([]);
    const looped = { ...ROOMS, model: { holds: 'x', imports: ['run'] } };
    expect(layerViolations(looped)).toEqual(['harness/model/ may import harness/run/, a room at its level or above']);
  });

  it('catch a file outside a room and an import into a room not allowed', () => {
    const graph: ImportGraph = new Map([
      ['harness/stray.ts', []],
      ['harness/http/client.ts', ['../run/runner.ts', '../model/results.ts', './wire.ts', 'node:http']],
      ['harness/run/runner.ts', ['../http/client.ts', '../../protocol/pkce.ts']],
    ]);
    expect(roomViolations(graph)).toEqual([
      `harness/stray.ts is in no room of harness/ (${Object.keys(ROOMS).join(', ')}): move it into one`,
      'harness/http/client.ts imports harness/run/runner.ts: harness/http/ may import only ' +
        (ROOMS.http?.imports.join(', ') ?? ''),
    ]);
  });

  it(`leave harness/ at most ${TOP_LEVEL_MAX} entries at its top level, each a room`, () => {
    const entries = readdirSync(path.join(ROOT, 'harness'));
    expect(entries.length).toBeLessThanOrEqual(TOP_LEVEL_MAX);
    expect(entries.filter((e) => !ROOMS[e])).toEqual([]);
  });

  it(`keep every engine file at most ${ENGINE_MAX_LINES} lines`, () => {
    const graph = repositoryImportGraph(ROOT);
    const long = [...graph.keys()]
      .filter((f) => f.startsWith('harness/'))
      .map((f) => ({ f, lines: readFileSync(path.join(ROOT, f), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > ENGINE_MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    expect(long).toEqual([]);
  }, 60_000);
});
