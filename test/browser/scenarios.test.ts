/**
 * The browser scenarios, proven in Chromium (the matrix leaves them out): each passes against the
 * clean reference and fails with every planted flaw it claims; they hold against oidc-provider;
 * and the browser login driver works as the config's driver, with and without steps.
 * One Chromium for the whole file. Without Chromium these tests fail (never skip): `npm test`
 * installs it first (scripts/ensure-chromium.ts) or says how.
 */
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedReference, startEmbeddedReference } from '../../cli/embedded.ts';
import type { BrowserStep } from '../../harness/config/load.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import type { Report, ScenarioResult } from '../../harness/model/results.ts';
import type { Scenario } from '../../harness/scenario/scenario.ts';
import { runConformance } from '../../index.ts';
import type { FlawName, ReferenceOptions } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { startOidcProvider } from '../../interop/oidc-provider/provider.ts';
import { closedPort } from '../support/ports.ts';

const BROWSER = BUILT_IN_SCENARIOS.filter((s) => s.area === 'browser');
const byId = (id: string) => BUILT_IN_SCENARIOS.find((s) => s.id === id)!;
const show = (r: ScenarioResult) =>
  `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}${r.skipReason ? ` — ${r.skipReason}` : ''}`;

const host = new BrowserHost();
afterAll(() => host.close());

type Target = Parameters<typeof runConformance>[0]['target'];

async function runOn(
  options: ReferenceOptions,
  scenarios: readonly Scenario[],
  reportDir?: string,
  target?: (t: EmbeddedReference['target']) => Target,
): Promise<Report> {
  const ref = await startEmbeddedReference(options);
  try {
    return await runConformance({
      target: target ? target(ref.target) : ref.target,
      scenarios,
      browser: host,
      seed: 7,
      ...(reportDir ? { reportDir, formats: ['json'] } : {}),
    });
  } finally {
    await ref.server.close();
  }
}

it('has Chromium to run them with (npm test installs it first, or says how)', () => {
  expect(host.unavailable, host.unavailable).toBeUndefined();
});

describe('against the clean reference', () => {
  let report: Report;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'idpc-browser-'));
    report = await runOn({}, BROWSER, dir);
  }, 240_000); // every browser scenario, each with Chromium: generous on a loaded machine

  it('every browser scenario passes', () => {
    expect(report.results.map(show)).toEqual(BROWSER.map((s) => `${s.id}: passed`));
  });

  it('leaves its screenshots in the report folder, each one evidence with a path relative to it', async () => {
    for (const r of report.results) {
      const shots = r.evidence.filter((e) => e.kind === 'screenshot');
      expect(shots.length, r.id).toBeGreaterThan(0);
      for (const shot of shots) {
        expect(shot.path).toMatch(new RegExp(`^screenshots/${r.id.replace('.', '\\.')}/\\d\\d-[a-z0-9-]+\\.png$`));
        const png = await readFile(path.join(dir, shot.path));
        expect(png.subarray(1, 4).toString()).toBe('PNG');
      }
    }
    expect((await readdir(path.join(dir, 'screenshots'))).sort()).toEqual(BROWSER.map((s) => s.id).sort());
  });

  it(
    "records the browser's pages as transcripts: the caught redirect never sent, codes and " + 'cookies redacted',
    async () => {
      const flow = report.results.find((r) => r.id === 'browser.code-flow')!;
      const http = flow.evidence.filter((e) => e.kind === 'http');
      const caught = http.find((e) => e.error?.startsWith('not sent: the redirect to the redirect_uri'));
      expect(caught?.request.url).toMatch(/^https:\/\/spa\.example\.test\/callback\?code=\[REDACTED:code:\d+\]&state=/);
      expect(http.some((e) => e.label === 'browser: page' && e.response?.status === 200)).toBe(true);
      const json = await readFile(path.join(dir, 'report.json'), 'utf8');
      expect(json).not.toMatch(/[?&]code=(?!\[REDACTED)/);
      expect(json).not.toContain('alice-wonderland-42');
    },
  );
});

describe('with the flaw each browser scenario claims', () => {
  const claims = BROWSER.flatMap((s) => (s.catches ?? []).map((flaw) => [flaw as FlawName, s.id] as const));

  it('claims the flaws the browser checks exist for', () => {
    expect(claims.map(([flaw]) => flaw)).toEqual(
      expect.arrayContaining(['redirect-open-on-error', 'consent-skipped', 'no-frame-protection']),
    );
  });

  it.each(claims)(
    '%s: %s fails and says what the target did',
    async (flaw, id) => {
      const report = await runOn({ flaws: [flaw] }, [byId(id)]);
      const [result] = report.results;
      expect(result!.status, show(result!)).toBe('failed');
      expect(result!.message).toBeTruthy();
    },
    30_000,
  );
});

describe("browser.clickjacking's framing page", () => {
  it('listens where browser.framingHost and framingPort say, and the failure names that origin', async () => {
    const port = await closedPort();
    const report = await runOn({ flaws: ['no-frame-protection'] }, [byId('browser.clickjacking')], undefined, (t) => ({
      ...t,
      browser: { framingHost: 'localhost', framingPort: port },
    }));
    expect(report.results[0], show(report.results[0]!)).toMatchObject({ status: 'failed' });
    expect(report.results[0]!.message).toContain(`A page on http://localhost:${port} framed the login page`);
  }, 60_000);

  it('needs no user: with nothing but the issuer and registration it frames the login page and judges', async () => {
    // Before (issue 39): an error, "no user is configured", from the browser login driver made before any use.
    for (const flaws of [[], ['no-frame-protection']] as FlawName[][]) {
      const report = await runOn({ flaws }, [byId('browser.clickjacking')], undefined, (t) => ({
        issuer: t.issuer,
        registration: { enabled: true },
      }));
      expect(show(report.results[0]!)).toMatch(flaws.length ? /^browser.clickjacking: failed/ : /: passed$/);
    }
  }, 60_000);

  it('headers.* read the HTML of the pages the browser driver walked (their metas, links, controls)', async () => {
    const report = await runOn({}, [byId('headers.referrer-policy')], undefined, (t) => ({
      ...t,
      login: { driver: 'browser' },
    }));
    const notes = report.results[0]!.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(show(report.results[0]!)).toMatch(/: passed$/);
    expect(notes.find((n) => n.startsWith('The login page'))).toMatch(/: Referrer-Policy no-referrer, meta referrer/);
  }, 60_000);

  it('a host it cannot listen on is a set-up error that names the setting', async () => {
    const report = await runOn({}, [byId('browser.clickjacking')], undefined, (t) => ({
      ...t,
      browser: { framingHost: '203.0.113.7', framingPort: 0 },
    }));
    expect(report.results[0]).toMatchObject({ status: 'error' });
    expect(report.results[0]!.message).toMatch(
      /framing page could not listen on 203\.0\.113\.7:0 \(browser\.framingHost/,
    );
  }, 60_000);
});

describe('the browser scenarios with login.driver "form" and steps: the browser logs in by the steps', () => {
  it("uses the config's steps whichever driver the other scenarios use", async () => {
    const wrong: BrowserStep[] = [{ fill: '#no-such-input', value: '${user.username}', timeoutMs: 300 }];
    const report = await runOn({}, [byId('browser.code-flow')], undefined, (t) => ({
      ...t,
      login: { driver: 'form', usernameField: 'username', passwordField: 'password', steps: wrong },
    }));
    expect(report.results[0]).toMatchObject({ status: 'error' });
    expect(report.results[0]!.message).toContain('step 1 (fill #no-such-input) found nothing visible within 300 ms');
  }, 60_000);
});

describe("against oidc-provider (an independent IdP), with the driver's defaults on its dev pages", () => {
  it("the browser scenarios pass, the code flow and the device activation among them; the config's browser driver " +
    'logs in too', async () => {
    const op = await startOidcProvider();
    try {
      const report = await runConformance({ target: op.target, scenarios: BROWSER, browser: host, seed: 7 });
      expect(report.results.map(show)).toEqual(BROWSER.map((s) => `${s.id}: passed`));
      const viaConfig = await runConformance({
        target: { ...op.target, login: { driver: 'browser' } },
        scenarios: [byId('code.happy-path')],
        browser: host,
        seed: 7,
      });
      expect(viaConfig.results.map(show)).toEqual(['code.happy-path: passed']);
      expect(viaConfig.results[0]!.evidence.some((e) => e.kind === 'screenshot')).toBe(true);
    } finally {
      await op.close();
    }
  }, 60_000);
});

describe('login.driver "browser" with steps (docs/target-config.md), against the reference', () => {
  const steps: BrowserStep[] = [
    { fill: '#username', value: '${user.username}' },
    { fill: '#password', value: '${user.password}' },
    { click: 'button[type=submit]' },
    { click: 'text=Allow', optional: true, decision: 'approve' },
    { click: 'text=Deny', optional: true, decision: 'deny' },
  ];

  it('logs in, approves and denies by the steps: first-party without consent, third-party with it, devices approved ' +
    'and denied, an error page left alone', async () => {
    const ids = [
      'code.happy-path',
      'consent.third-party-required',
      'device.denied',
      'browser.device-activation',
      'browser.error-page',
    ];
    const report = await runOn({}, ids.map(byId), undefined, (t) => ({ ...t, login: { driver: 'browser', steps } }));
    expect(report.results.map(show)).toEqual(ids.map((id) => `${id}: passed`));
    const labels = (i: number) =>
      report.results[i]!.evidence.flatMap((e) => (e.kind === 'screenshot' ? [e.label] : []));
    // A screenshot after each step, but none after the one that ended at the redirect_uri (the page did not change).
    expect(labels(0)).toEqual(['authorization request', 'step 1: fill #username', 'step 2: fill #password']);
    expect(labels(1)).toEqual([
      'authorization request',
      'step 1: fill #username',
      'step 2: fill #password',
      'step 3: click button[type=submit]',
    ]);
  }, 30_000);

  it('a step whose element never shows stops the login with the step named: set-up for a scenario, ' +
    'so an error', async () => {
    const wrong: BrowserStep[] = [{ fill: '#login', value: '${user.username}', timeoutMs: 300 }, ...steps.slice(1)];
    const report = await runOn({}, [byId('code.single-use')], undefined, (t) => ({
      ...t,
      login: { driver: 'browser', steps: wrong },
    }));
    expect(report.results[0]).toMatchObject({ status: 'error' });
    expect(report.results[0]!.message).toContain(
      'step 1 (fill #login) found nothing visible within 300 ms on "Sign in"',
    );
  }, 30_000);
});
