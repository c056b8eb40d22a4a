/**
 * The engine's rooms (docs/ARCHITECTURE.md, "The engine's rooms"): harness/ is a handful of folders, each with the
 * rooms it may import. The allowed imports form layers (no room reaches a room above it), so there is no loop
 * between rooms; a file of the engine is at most ENGINE_MAX_LINES lines.
 */
import path from 'node:path';
import type { ImportGraph } from './import-rule.ts';

export interface Room {
  /** What belongs here, in one phrase (the ARCHITECTURE page says more). */
  holds: string;
  /** The rooms of harness/ its files may import (besides its own, protocol/ and packages). */
  imports: readonly string[];
}

/** harness/'s rooms, from the ground up: each may import only rooms listed before it. */
export const ROOMS: Readonly<Record<string, Room>> = {
  model: { holds: 'requirements, failures and their codes, results, limits: the words of a run', imports: [] },
  config: { holds: 'the target config: its schema, loading, environment, messages', imports: ['model'] },
  redact: { holds: 'redaction of secrets and tokens in all a run reports', imports: ['model'] },
  tokens: {
    holds: 'what the harness signs and derives: JWS, client assertions, DPoP, request objects, PKCE',
    imports: ['model', 'config', 'redact'],
  },
  http: {
    holds: 'the HTTP client, wire, transport, origins, traffic, recorder',
    imports: ['model', 'config', 'redact', 'tokens'],
  },
  cimd: {
    holds: "the harness's own Client ID Metadata Documents and the listener that serves them during a run",
    imports: ['model', 'config'],
  },
  target: { holds: 'discovery and the resolved target', imports: ['model', 'config', 'redact', 'http'] },
  login: {
    holds: 'sign-in walks: one page model, the HTTP and browser actuators',
    imports: ['model', 'config', 'http'],
  },
  registration: {
    holds: 'dynamic client registration, as a client and for the run',
    imports: ['model', 'config', 'redact', 'http', 'target'],
  },
  flows: {
    holds: 'the flows scenarios start from: code, device, PAR, JWT validation, hooks',
    imports: ['model', 'config', 'http', 'tokens', 'target', 'login'],
  },
  scenario: {
    holds: 'defineScenario, the ctx type, a scenario status and notes',
    imports: ['model', 'config', 'http', 'tokens', 'cimd', 'target', 'login', 'flows'],
  },
  context: {
    holds: 'building the ctx one scenario runs with',
    imports: ['model', 'config', 'redact', 'http', 'tokens', 'cimd', 'target', 'login', 'flows', 'scenario'],
  },
  run: {
    holds: 'the plan, selection, shards, probes, the runner, a whole run',
    imports: [
      'model',
      'config',
      'redact',
      'http',
      'tokens',
      'cimd',
      'target',
      'login',
      'registration',
      'flows',
      'scenario',
      'context',
    ],
  },
};

/** No file of the engine (harness/) is longer than this. */
export const ENGINE_MAX_LINES = 400;
/** harness/ holds its rooms and nothing else at its top level (the "about 15 entries"). */
export const TOP_LEVEL_MAX = 15;

const roomOf = (file: string): string | undefined => {
  const parts = file.split('/');
  return parts[0] === 'harness' && parts.length > 2 ? parts[1] : undefined;
};

/** Every engine file outside a room, and every import from one room into a room it may not import. */
export function roomViolations(graph: ImportGraph, rooms: Readonly<Record<string, Room>> = ROOMS): string[] {
  const problems: string[] = [];
  for (const [file, specifiers] of graph) {
    if (!file.startsWith('harness/')) continue;
    const room = roomOf(file);
    if (room === undefined || !rooms[room]) {
      problems.push(`${file} is in no room of harness/ (${Object.keys(rooms).join(', ')}): move it into one`);
      continue;
    }
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      const to = roomOf(target);
      if (to === undefined || to === room || rooms[room]?.imports.includes(to)) continue;
      problems.push(`${file} imports ${target}: harness/${room}/ may import only ${list(rooms[room]?.imports)}`);
    }
  }
  return problems;
}

const list = (rooms: readonly string[] | undefined) => (rooms?.length ? rooms.join(', ') : 'no other room');

/** A room that may import a room listed after it (the layers would not be layers): empty when they are. */
export function layerViolations(rooms: Readonly<Record<string, Room>> = ROOMS): string[] {
  const order = Object.keys(rooms);
  const problems: string[] = [];
  for (const [i, name] of order.entries())
    for (const to of rooms[name]?.imports ?? []) {
      const j = order.indexOf(to);
      if (j < 0) problems.push(`harness/${name}/ may import harness/${to}/, which is not a room`);
      else if (j >= i) problems.push(`harness/${name}/ may import harness/${to}/, a room at its level or above`);
    }
  return problems;
}
