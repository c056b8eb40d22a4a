/**
 * From a scenario to the wire (docs/ARCHITECTURE.md): the files a scenario's call passes through before its first byte
 * goes on the wire, read from the call stack at the moment the transport hands the request to Node (req.end). A
 * sign-in (ctx.flows.code, ctx.authorize; the auto and the form driver) crosses 6 files, a back-channel request
 * (ctx.http.token, ctx.http.send) 2; the paths are the ones docs/ARCHITECTURE.md lists.
 *
 * The path runs synchronously from the scenario's call to req.end (nothing is awaited before the first byte: the
 * session is free, nothing is pushed), so the stack holds every function the call passed through, pass-throughs that
 * only hand on a promise included. The test checks that it is so (no `async` frame between) and that the scenario's
 * own frame is on the stack, so the count cannot shrink by a chain of promises the stack does not show.
 */
import { readFileSync } from 'node:fs';
import { ClientRequest } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReferenceServer, defineScenario, runConformance } from '../../index.ts';
import type { ScenarioContext } from '../../harness/scenario/scenario.ts';
import { GRANT } from '../../harness/target/target.ts';
import { targetConfig } from '../../reference/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HERE = fileURLToPath(import.meta.url);

/** A call stack read between the scenario (this file) and the write: the files crossed, in the order crossed. */
interface Crossing {
  files: string[];
  /** The scenario's frame is on the stack (the stack reaches back to the call). */
  fromScenario: boolean;
  /** `async` frames between the write and the scenario (the stack would not show a pass-through). */
  asyncFrames: number;
}

/** The source file of a stack frame line ("    at f (/x/y.ts:1:2)", "    at async /x/y.ts:1:2"), or undefined. */
function frameFile(line: string): string | undefined {
  const m = /\(?((?:file:\/\/)?[^\s()]+?):\d+:\d+\)?$/.exec(line.trim());
  if (!m?.[1]) return undefined;
  return m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
}

/** Reads `stack` (innermost first) down to the scenario's frame: source files only, node: and node_modules left out. */
function crossing(stack: string, scenarioFile: string): Crossing {
  const files: string[] = [];
  let asyncFrames = 0;
  for (const line of stack.split('\n').slice(1)) {
    const file = frameFile(line);
    if (!file || file.startsWith('node:') || file.includes('/node_modules/') || !path.isAbsolute(file)) continue;
    if (file === scenarioFile) return { files: files.reverse(), fromScenario: true, asyncFrames };
    if (line.trim().startsWith('at async ')) asyncFrames++;
    const relative = path.relative(ROOT, file);
    if (!files.includes(relative)) files.push(relative);
  }
  return { files: files.reverse(), fromScenario: false, asyncFrames };
}

/** Records the stack of the first request written while `what` is set, by name. */
const captured = new Map<string, string>();
let capturing: string | undefined;
const originalEnd = ClientRequest.prototype.end;

function capture<T>(what: string, call: () => Promise<T>): Promise<T> {
  capturing = what;
  return call().finally(() => {
    capturing = undefined;
  });
}

beforeAll(() => {
  ClientRequest.prototype.end = function end(this: ClientRequest, ...args: unknown[]) {
    if (capturing && !captured.has(capturing)) {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = Number.POSITIVE_INFINITY;
      const at: { stack?: string } = {};
      Error.captureStackTrace(at, end);
      Error.stackTraceLimit = limit;
      captured.set(capturing, at.stack ?? '');
    }
    return Reflect.apply(originalEnd, this, args);
  } as ClientRequest['end'];
});

afterAll(() => {
  ClientRequest.prototype.end = originalEnd;
});

/** The paths docs/ARCHITECTURE.md's "From a scenario to the wire" lists: its numbered lists' files, list by list. */
function documentedPaths(): string[][] {
  const doc = readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const start = doc.indexOf('### From a scenario to the wire');
  expect(start).toBeGreaterThan(0);
  const end = doc.indexOf('\n### ', start + 1);
  const lists: string[][] = [];
  let current: string[] | undefined;
  for (const line of doc.slice(start, end < 0 ? undefined : end).split('\n')) {
    const m = /^\d+\. `([^`]+)`/.exec(line);
    if (m?.[1]) {
      current ??= [];
      current.push(m[1]);
    } else if (current && line.trim() === '') {
      lists.push(current);
      current = undefined;
    }
  }
  if (current) lists.push(current);
  return lists;
}

const SIGN_IN = [
  'harness/flows/flows.ts',
  'harness/login/http-walk.ts',
  'harness/login/walk.ts',
  'harness/login/http-actuator.ts',
  'harness/http/client.ts',
  'harness/http/transport.ts',
];
const BACK_CHANNEL = ['harness/http/client.ts', 'harness/http/transport.ts'];

/** One scenario, run through the library against the embedded reference, whose calls are captured. */
async function runCaptured(driver: 'auto' | 'form', run: (ctx: ScenarioContext) => Promise<void>): Promise<string> {
  const server = createReferenceServer();
  await server.listen(0, '127.0.0.1');
  try {
    const config = targetConfig(server);
    expect(config.login.driver).toBe('auto');
    const scenario = defineScenario({
      id: `wire.${driver}`,
      title: 'a sign-in and a token request, their first bytes captured',
      requirements: { code: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' } },
      severity: 'low',
      requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code'] },
      run,
    });
    const report = await runConformance({
      target: { ...config, login: driver === 'form' ? { ...config.login, driver: 'form' } : config.login },
      extraScenarios: [scenario],
      only: [scenario.id],
      seed: 7,
    });
    const result = report.results.find((r) => r.id === scenario.id);
    return `${result?.status}${result?.message ? `: ${result.message}` : ''}`;
  } finally {
    await server.close();
  }
}

describe('from a scenario to the wire', () => {
  for (const driver of ['auto', 'form'] as const) {
    const title = `a sign-in crosses ${SIGN_IN.length} files with the ${driver} driver, a back-channel request`;
    it(`${title} ${BACK_CHANNEL.length}`, async () => {
      captured.clear();
      const status = await runCaptured(driver, async (ctx) => {
        const { code, request, pkce } = await capture('flows.code', () => ctx.flows.code('confidential'));
        await capture('token', () =>
          ctx.http.token(ctx.client('confidential'), {
            grant_type: GRANT.code,
            code,
            redirect_uri: request.redirect_uri,
            code_verifier: pkce?.verifier,
          }),
        );
        await capture('authorize', () => ctx.authorize('confidential', {}, { session: 'fresh' }));
        await capture('send', () => ctx.http.send({ method: 'POST', url: ctx.target.endpoints.token!, form: {} }));
      });
      expect(status).toBe('passed');
      const read = (what: string) => crossing(captured.get(what) ?? '', HERE);
      for (const [what, expected] of [
        ['flows.code', SIGN_IN],
        ['authorize', SIGN_IN],
        ['token', BACK_CHANNEL],
        ['send', BACK_CHANNEL],
      ] as const) {
        const seen = read(what);
        expect(seen.fromScenario, `${what}: the stack reaches back to the scenario`).toBe(true);
        expect(seen.asyncFrames, `${what}: no async frame between the scenario and the write`).toBe(0);
        expect(seen.files, what).toEqual(expected);
      }
      expect(SIGN_IN.length).toBeLessThanOrEqual(6);
      expect(BACK_CHANNEL.length).toBeLessThanOrEqual(3);
    }, 60_000);
  }

  it('is the path docs/ARCHITECTURE.md writes down', () => {
    expect(documentedPaths()).toEqual([SIGN_IN, BACK_CHANNEL]);
  });

  it('reads a stack down to the scenario, leaving out node: and node_modules, and counts async frames', () => {
    const stack = [
      'Error',
      '    at end (/r/test/x.test.ts:1:1)',
      '    at attempt (/r/harness/http/transport.ts:1:1)',
      '    at new Promise (<anonymous>)',
      '    at send (node:internal/whatever:1:1)',
      '    at lib (/r/node_modules/lib/index.js:1:1)',
      '    at async HttpClient.send (file:///r/harness/http/client.ts:3:4)',
      '    at attempt (/r/harness/http/transport.ts:2:1)',
      '    at async run (/r/test/scenario.ts:5:5)',
      '    at runner (/r/harness/run/runner.ts:1:1)',
    ].join('\n');
    const seen = crossing(stack.replace('    at end (/r/test/x.test.ts:1:1)\n', ''), '/r/test/scenario.ts');
    expect(seen).toEqual({
      files: [path.relative(ROOT, '/r/harness/http/client.ts'), path.relative(ROOT, '/r/harness/http/transport.ts')],
      fromScenario: true,
      asyncFrames: 1,
    });
    expect(crossing('Error\n    at f (/r/a.ts:1:1)', '/r/test/scenario.ts').fromScenario).toBe(false);
  });
});
