/**
 * Without a browser: finding Chromium, the fresh-machine set-up's decisions, and what a run does
 * when there is no Chromium (browser scenarios skipped with the install line; the browser login
 * driver an error). The browser itself is exercised in test/browser/.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { BrowserHost, CHROMIUM_INSTALL, type ChromiumLookup, findChromium } from '../../harness/login/chromium.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { runScenarios } from '../../harness/run/runner.ts';
import { defineScenario } from '../../harness/scenario/scenario.ts';
import { targetFromDiscovery } from '../../harness/target/target.ts';
import { APT_GET, ensureChromium } from '../../scripts/ensure-chromium.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { planRun } from '../../harness/run/plan.ts';

describe('finding Chromium', () => {
  it(
    'takes an executable CHROMIUM_PATH, names a wrong one, and gives the install line when ' + 'none is found',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'idpc-chromium-'));
      const exe = path.join(dir, 'chrome');
      await writeFile(exe, '#!/bin/sh\n', { mode: 0o755 });
      const plain = path.join(dir, 'not-executable');
      await writeFile(plain, '', { mode: 0o644 });
      expect(findChromium({ CHROMIUM_PATH: exe })).toEqual({ path: exe });
      const wrong = findChromium({ CHROMIUM_PATH: plain });
      expect('missing' in wrong && wrong.missing).toContain(
        `CHROMIUM_PATH is "${plain}", which is not an executable file`,
      );
      const host = new BrowserHost({
        missing: `no Chromium was found; install Debian's chromium (${CHROMIUM_INSTALL})`,
      });
      expect(host.unavailable).toContain('apt-get update && apt-get install -y chromium');
      await expect(host.newContext()).rejects.toThrow(/the browser is not available: no Chromium was found/);
    },
  );
});

describe('the fresh-machine set-up (scripts/ensure-chromium.ts)', () => {
  const missing: ChromiumLookup = { missing: 'no Chromium was found' };
  function ensure(options: {
    found: ChromiumLookup[];
    isRoot: boolean;
    hasAptGet?: boolean;
    env?: NodeJS.ProcessEnv;
    runs?: boolean;
  }) {
    const ran: string[] = [];
    const said: string[] = [];
    const finds = [...options.found];
    const result = ensureChromium({
      env: options.env ?? {},
      find: () => finds.shift() ?? finds.at(-1) ?? missing,
      isRoot: options.isRoot,
      hasAptGet: options.hasAptGet ?? true,
      run: (command, args) => {
        ran.push([command, ...args].join(' '));
        return options.runs ?? true;
      },
      say: (m) => said.push(m),
    });
    return { result, ran, said: said.join('\n') };
  }

  it('does nothing when Chromium is there', () => {
    const { ran, said } = ensure({ found: [{ path: '/usr/bin/chromium' }], isRoot: true });
    expect(ran).toEqual([]);
    expect(said).toBe('Chromium at /usr/bin/chromium');
  });

  it("installs Debian's chromium as root with apt-get, then finds it", () => {
    const { result, ran } = ensure({ found: [missing, { path: '/usr/bin/chromium' }], isRoot: true });
    expect(ran).toEqual([`${APT_GET} update`, `${APT_GET} install -y chromium`]);
    expect(result).toEqual({ path: '/usr/bin/chromium' });
  });

  it('installs nothing when it may not (not root, no apt-get, or a wrong CHROMIUM_PATH) and says how to', () => {
    for (const options of [
      { isRoot: false },
      { isRoot: true, hasAptGet: false },
      { isRoot: true, env: { CHROMIUM_PATH: '/x' } },
    ]) {
      const { ran, said, result } = ensure({ found: [missing], ...options });
      expect(ran).toEqual([]);
      expect('missing' in result).toBe(true);
      expect(said).toContain(CHROMIUM_INSTALL);
    }
    const failed = ensure({ found: [missing], isRoot: true, runs: false });
    expect(failed.ran).toEqual([`${APT_GET} update`]);
    expect(failed.said).toContain(CHROMIUM_INSTALL);
  });
});

describe('a run without Chromium', () => {
  const issuer = 'https://idp.test';
  const target = targetFromDiscovery(issuer, `${issuer}/.well-known/openid-configuration`, {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    grant_types_supported: ['authorization_code'],
  });
  const config = (login: object) =>
    validateConfig(
      {
        issuer,
        login,
        user: { username: 'alice', password: 'alice-password-1' },
        clients: {
          confidential: {
            clientId: 'web',
            clientSecret: 'web-secret-1',
            redirectUri: 'https://app.test/cb',
            firstParty: false,
          },
        },
      },
      {},
    );
  const browser = new BrowserHost({
    missing: `no Chromium was found; install Debian's chromium (${CHROMIUM_INSTALL}) or set CHROMIUM_PATH`,
  });

  it('skips the browser scenarios with the reason and the install line', async () => {
    const scenarios = BUILT_IN_SCENARIOS.filter((s) => s.area === 'browser');
    expect(scenarios.map((s) => s.id).sort()).toEqual([
      'browser.clickjacking',
      'browser.code-flow',
      'browser.consent-third-party',
      'browser.device-activation',
      'browser.error-page',
    ]);
    const { results } = await runScenarios(
      planRun({
        scenarios,
        config: config({ driver: 'form' }),
        redactor: new Redactor(),
        browser,
      }),
      target,
    );
    for (const r of results) {
      expect(r.status, r.id).toBe('skipped');
      expect(r.skipReason).toContain(
        `needs Chromium: no Chromium was found; install Debian's chromium (${CHROMIUM_INSTALL})`,
      );
    }
  });

  it('makes login.driver "browser" an error that says what is missing, not a failure of the target', async () => {
    const logsIn = defineScenario({
      id: 'custom.logs-in',
      title: 'logs in',
      requirements: { rfc6749_4_1: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' } },
      severity: 'low',
      requires: { roles: ['confidential'], user: true },
      async run(ctx) {
        await ctx.authorize('confidential');
      },
    });
    const { results } = await runScenarios(
      planRun({
        scenarios: [logsIn],
        config: config({ driver: 'browser' }),
        redactor: new Redactor(),
        browser,
      }),
      target,
    );
    expect(results[0]).toMatchObject({
      status: 'error',
      message: expect.stringContaining('the browser login driver needs Chromium: no Chromium was found'),
    });
    expect(results[0]!.message).toContain(CHROMIUM_INSTALL);
  });

  it('refuses ctx.browser in a scenario that does not declare requires.browser', async () => {
    const sneaky = defineScenario({
      id: 'custom.sneaky',
      title: 'uses the browser undeclared',
      requirements: { rfc6749_4_1: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' } },
      severity: 'low',
      async run(ctx) {
        await ctx.browser.newPage();
      },
    });
    const { results } = await runScenarios(
      planRun({
        scenarios: [sneaky],
        config: config({ driver: 'form' }),
        redactor: new Redactor(),
        browser,
      }),
      target,
    );
    expect(results[0]).toMatchObject({
      status: 'error',
      message: 'scenario custom.sneaky uses ctx.browser but does not declare requires.browser',
    });
  });
});
