/**
 * The interop matrix's drivers: `--driver` sets the target config's login driver (auto, form, browser), and an IdP's
 * browser pass (after a form-driver run) puts the browser run's verdicts in place of the first run's, with a notice
 * each.
 */
import { describe, expect, it } from 'vitest';
import type { Report, ScenarioResult } from '../../harness/model/results.ts';
import lemonldapNg from '../../interop/lemonldap-ng/index.ts';
import { driverOf, withBrowserPass, withDriver } from '../../interop/matrix.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { stubResult } from '../support/stub-result.ts';

const result = stubResult;

const report = (results: ScenarioResult[], skip: string[] = []): Report =>
  ({
    durationMs: 10,
    selection: { only: [], skip },
    summary: {},
    results,
  }) as unknown as Report;

describe('the login driver of an interop run', () => {
  const target = { issuer: 'http://idp', login: { driver: 'form', usernameField: 'user', passwordField: 'password' } };

  it('keeps the IdP login settings for its own driver and gives the browser driver no form-driver fields', () => {
    expect(withDriver(target, undefined)).toBe(target);
    expect(withDriver(target, 'form')).toBe(target);
    expect(withDriver(target, 'browser')).toEqual({ issuer: 'http://idp', login: { driver: 'browser' } });
    expect(withDriver(target, 'auto')).toEqual({
      issuer: 'http://idp',
      login: { driver: 'auto', usernameField: 'user', passwordField: 'password' },
    });
  });

  it('takes a config that names no driver for the auto driver, the default', () => {
    const auto = { issuer: 'http://idp', login: { usernameField: 'user' } };
    expect(driverOf(auto)).toBe('auto');
    expect(driverOf({ issuer: 'http://idp' })).toBe('auto');
    expect(withDriver(auto, 'auto')).toBe(auto);
    expect(withDriver(auto, 'form')).toEqual({
      issuer: 'http://idp',
      login: { usernameField: 'user', driver: 'form' },
    });
  });
});

describe('a browser pass', () => {
  it("replaces the first run's verdicts of its scenarios, recounts, and names each in the notices", () => {
    const first = report([result('a.one', 'passed'), result('c.three', 'failed')], ['b.two']);
    const browser = report([result('b.two', 'failed')]);
    const merged = withBrowserPass(first, browser, 'a deny button that works by script');
    expect(merged.results.map((r) => [r.id, r.status])).toEqual([
      ['a.one', 'passed'],
      ['b.two', 'failed'],
      ['c.three', 'failed'],
    ]);
    expect(merged.summary).toMatchObject({ total: 3, passed: 1, failed: 2 });
    expect(merged.selection.skip).toEqual([]);
    expect(merged.durationMs).toBe(20);
    expect(merged.notices).toEqual(['b.two: run with the browser login driver (a deny button that works by script)']);
  });

  it('LemonLDAP::NG names only scenarios of the catalog, each with the reason', () => {
    const ids = new Set(BUILT_IN_SCENARIOS.map((s) => s.id));
    expect(lemonldapNg.browserPass?.scenarios).toEqual(['authorize.user-denies']);
    for (const id of lemonldapNg.browserPass!.scenarios) expect(ids.has(id), id).toBe(true);
    expect(lemonldapNg.browserPass!.why).toMatch(/Refuse.*script/);
  });
});
