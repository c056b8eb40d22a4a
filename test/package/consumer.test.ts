/**
 * The package as a consumer gets it: `npm pack` (which builds dist/ through prepack), installed
 * into a new project, then used the ways teams use it — a plain `node` import of the package and
 * of `idp-conformance/reference`, `require()` where Node loads ES modules synchronously, the
 * `idp-conformance` bin, `node --test`, vitest, and `tsc --noEmit` of a consumer file under
 * NodeNext + strict with no other settings.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = join(import.meta.dirname, '../..');
const resolveHere = createRequire(import.meta.url).resolve;
let dir = '';
let app = '';

async function node(args: string[], timeout = 120_000) {
  return run(process.execPath, args, { cwd: app, timeout, env: { ...process.env, NODE_OPTIONS: '' } });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'idpc-consumer-'));
  // --ignore-scripts=false: prepack must run, it builds dist/.
  await run('npm', ['pack', '--pack-destination', dir, '--ignore-scripts=false'], { cwd: REPO, timeout: 300_000 });
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  app = join(dir, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(dir, tarball), '@types/node@20'], {
    cwd: app,
    timeout: 300_000,
  });
}, 600_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the packed package in a new project', () => {
  it('imports with plain node: the library API and the reference subpath', async () => {
    await writeFile(
      join(app, 'import.mjs'),
      `
      import { runConformance, createReferenceServer, defineScenario, BUILT_IN_SCENARIOS } from 'idp-conformance';
      import { targetConfigFor, SEEDED_CLIENTS, createReferenceServer as direct } from 'idp-conformance/reference';
      const server = createReferenceServer();
      await server.listen(0);
      const report = await runConformance({ target: targetConfigFor(server), only: ['discovery.*', ` +
        `'code.happy-path'] });
      await server.close();
      console.log(JSON.stringify({ n: BUILT_IN_SCENARIOS.length, clients: Object.keys(SEEDED_CLIENTS).length,
        same: direct === createReferenceServer, define: typeof defineScenario, summary: report.summary }));
    `,
    );
    const { stdout } = await node(['import.mjs']);
    const out = JSON.parse(stdout) as {
      n: number;
      clients: number;
      same: boolean;
      summary: { total: number; passed: number };
    };
    expect(out.n).toBeGreaterThan(60);
    expect(out.same).toBe(true);
    expect(out.summary.total).toBeGreaterThan(1);
    expect(out.summary.passed).toBe(out.summary.total);
  }, 120_000);

  it('require() works where Node loads ES modules synchronously', async (ctx) => {
    await writeFile(
      join(app, 'require.cjs'),
      `
      const api = require('idp-conformance');
      const ref = require('idp-conformance/reference');
      console.log(typeof api.runConformance, typeof ref.createReferenceServer);
    `,
    );
    // Node 22.12+ loads ES modules from require() by default; Node 20.17+ and 22.0+ with
    // --experimental-require-module. Skipped, not passed, on a Node that cannot at all.
    const native = (process.features as { require_module?: boolean }).require_module === true;
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    const withFlag = !native && (major >= 22 || (major === 20 && minor >= 17));
    if (!native && !withFlag) ctx.skip('this Node has no require(esm); import() is the way');
    const { stdout } = await node([
      ...(withFlag ? ['--experimental-require-module', '--no-warnings'] : []),
      'require.cjs',
    ]);
    expect(stdout.trim()).toBe('function function');
  }, 60_000);

  it('the bin runs: --version and list', async () => {
    const bin = join(app, 'node_modules', '.bin', 'idp-conformance');
    const version = await run(bin, ['--version'], { cwd: app });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const list = await run(bin, ['list'], { cwd: app });
    expect(list.stdout).toContain('pkce.verifier-mismatch');
  }, 60_000);

  it('node --test runs a test that starts the reference', async () => {
    await writeFile(
      join(app, 'ref.test.mjs'),
      `
      import { test } from 'node:test';
      import assert from 'node:assert/strict';
      import { createReferenceServer } from 'idp-conformance/reference';
      test('the reference answers discovery', async () => {
        const server = createReferenceServer();
        const { issuer } = await server.listen(0);
        const doc = await (await fetch(issuer + '/.well-known/openid-configuration')).json();
        assert.equal(doc.issuer, issuer);
        await server.close();
      });
    `,
    );
    const { stdout } = await node(['--test', 'ref.test.mjs']);
    expect(stdout).toMatch(/# pass 1/);
    expect(stdout).toMatch(/# fail 0/);
  }, 60_000);

  it('vitest runs a test that imports the package', async () => {
    await writeFile(
      join(app, 'ref.vitest.test.mjs'),
      `
      import { expect, it } from 'vitest';
      import { createReferenceServer, BUILT_IN_SCENARIOS } from 'idp-conformance';
      it('starts the reference', async () => {
        const server = createReferenceServer();
        const { issuer } = await server.listen(0);
        expect((await fetch(issuer + '/jwks')).status).toBe(200);
        expect(BUILT_IN_SCENARIOS.length).toBeGreaterThan(60);
        await server.close();
      });
    `,
    );
    const vitest = join(resolveHere('vitest/package.json'), '..', 'vitest.mjs');
    const { stdout } = await node([vitest, 'run', '--root', app, 'ref.vitest.test.mjs'], 180_000);
    expect(stdout).toMatch(/1 passed/);
  }, 200_000);

  it('ships its documents (the service spec SPEC links point at, action.yml) and the fixture ' +
    'works from it', async () => {
    await writeFile(
      join(app, 'fixture.mjs'),
      `
      import { existsSync } from 'node:fs';
      import { fileURLToPath } from 'node:url';
      import { defaultSpecUrl } from 'idp-conformance';
      import { createReferenceServer, SEEDED_CLIENTS } from 'idp-conformance/reference';
      const web = SEEDED_CLIENTS.confidential;
      const server = createReferenceServer({ shapeClaims: (kind, claims) => ({ ...claims, shaped: kind }) });
      const { issuer } = await server.listen(0);
      const { callbackUrl } = await server.testLogin({ clientId: web.clientId, redirectUri: web.redirectUris[0], ` +
        `scope: 'openid' });
      server.clock.advance(61_000);
      const late = await fetch(issuer + '/token', { method: 'POST', body: new URLSearchParams({
        grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code'), redirect_uri: web.redirectUris[0],
        client_id: web.clientId, client_secret: web.clientSecret }) });
      await server.close();
      const spec = fileURLToPath(defaultSpecUrl());
      console.log(JSON.stringify({ spec, specExists: existsSync(spec), action: existsSync(new URL('../action.yml', ` +
        `new URL(defaultSpecUrl()))),
        iss: callbackUrl.searchParams.get('iss') === issuer, late: (await late.json()).error }));
    `,
    );
    const { stdout } = await node(['fixture.mjs']);
    const out = JSON.parse(stdout) as {
      spec: string;
      specExists: boolean;
      action: boolean;
      iss: boolean;
      late: string;
    };
    expect(out.spec).toBe(join(app, 'node_modules', 'idp-conformance', 'docs', 'service-spec.md'));
    expect(out).toMatchObject({ specExists: true, action: true, iss: true, late: 'invalid_grant' });
  }, 60_000);

  it('tsc --noEmit of a consumer file under NodeNext and strict: 0 errors, no other settings', async () => {
    await writeFile(
      join(app, 'consumer.ts'),
      `
      import { runConformance, createReferenceServer, defineScenario, type Report } from 'idp-conformance';
      import { targetConfigFor } from 'idp-conformance/reference';
      const server = createReferenceServer();
      await server.listen(0);
      const mine = defineScenario({
        id: 'mine.works', title: 'mine', requirements: { rfc6749_3_1: { spec: 'RFC 6749', section: '3.1', level: ` +
        `'MUST', party: 'server' } }, severity: 'low', run() {},
      });
      const report: Report = await runConformance({ target: targetConfigFor(server), only: ['discovery.*'], ` +
        `extraScenarios: [mine] });
      console.log(report.summary.passed);
      await server.close();
      const fixture = createReferenceServer({
        users: [{ username: 'bob', password: 'pw', sub: 'bob', claims: { email: 'bob@example.test', roles: ` +
        `['admin'] } }],
        scopeClaims: { roles: ['roles'] }, autoLogin: 'bob', lifetimes: { accessTokenFirstParty: 60 },
        shapeClaims: (kind, claims, { user }) => (kind === 'access_token' ? { ...claims, roles: user?.claims.roles ` +
        `} : claims),
      });
      fixture.clock.advance(1000);
      const login: { code: string; callbackUrl: URL } = await fixture.testLogin({ clientId: 'web-app', redirectUri: ` +
        `'https://web.example.test/callback' });
      console.log(login.code, fixture.clock.offset);
    `,
    );
    await writeFile(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
        },
        include: ['consumer.ts'],
      }),
    );
    const tsc = resolveHere('typescript/bin/tsc');
    const result = await node([tsc, '-p', 'tsconfig.json']).catch((error: { stdout: string }) => error);
    expect(result.stdout).toBe('');
  }, 180_000);
});
