/** The run plan (harness/run/plan.ts): the settings resolved once, with the defaults applied there and only there. */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { DEFAULTS, planRun, resolveSettings, withConfig } from '../../harness/run/plan.ts';

const config = validateConfig(
  {
    issuer: 'https://idp.test',
    clients: {
      confidential: { clientId: 'web', clientSecret: 'web-secret-value-1', redirectUri: 'https://a.test/cb' },
    },
  },
  {},
);

describe('resolveSettings', () => {
  it('applies the defaults: profile spec, a seed, DEFAULTS.runs and concurrency, empty selection', () => {
    const s = resolveSettings({});
    expect(s).toMatchObject({
      profile: 'spec',
      runs: DEFAULTS.runs,
      runsGiven: false,
      concurrency: DEFAULTS.concurrency,
      only: [],
      skip: [],
      plantedFlaws: [],
    });
    expect(Number.isInteger(s.seed) && s.seed >= 0 && s.seed <= 0x7fffffff).toBe(true);
  });

  it('keeps what was given; runs given overrides every property', () => {
    const s = resolveSettings({ profile: 'fapi2', seed: 0, runs: 3, concurrency: 1, only: ['pkce.*'] });
    expect(s).toMatchObject({ profile: 'fapi2', seed: 0, runs: 3, runsGiven: true, concurrency: 1, only: ['pkce.*'] });
  });

  it('resolving resolved settings changes nothing: the seed drawn once stays (every target of a run shares it)', () => {
    const once = resolveSettings({});
    const twice = resolveSettings(once);
    expect(twice).toEqual(once);
    expect(planRun({ ...once, config, scenarios: [] }).seed).toBe(once.seed);
    // runs defaulted stays "not given", so each property keeps its own count
    expect(planRun({ ...once, config, scenarios: [] }).runsGiven).toBe(false);
  });
});

describe('planRun', () => {
  it('is frozen, and so are its lists', () => {
    const plan = planRun({ config, scenarios: [], only: ['a.*'] });
    expect(Object.isFrozen(plan)).toBe(true);
    expect(Object.isFrozen(plan.only)).toBe(true);
    expect(() => {
      (plan as { seed: number }).seed = 1;
    }).toThrow(TypeError);
  });

  it("the time limits: the config's, else DEFAULTS; --timeout over the config's and taken as given", () => {
    expect(planRun({ config, scenarios: [] })).toMatchObject({
      explicitTimeoutMs: undefined,
      timeoutMs: DEFAULTS.scenarioTimeoutMs,
      requestTimeoutMs: DEFAULTS.requestTimeoutMs,
    });
    const timed = { ...config, timeouts: { scenarioMs: 5_000, requestMs: 2_000 } };
    expect(planRun({ config: timed, scenarios: [] })).toMatchObject({
      explicitTimeoutMs: 5_000,
      timeoutMs: 5_000,
      requestTimeoutMs: 2_000,
    });
    expect(planRun({ config: timed, scenarios: [], scenarioTimeoutMs: 7_000, requestTimeoutMs: 900 })).toMatchObject({
      explicitTimeoutMs: 7_000,
      timeoutMs: 7_000,
      requestTimeoutMs: 900,
    });
  });

  it("the default redactor knows the config's secrets and the extra ones; a redactor given is used as is", () => {
    const plan = planRun({ config, scenarios: [], secrets: ['an-extra-secret-value'] });
    const text = plan.redactor.text('web-secret-value-1 and an-extra-secret-value');
    expect(text).not.toContain('web-secret-value-1');
    expect(text).not.toContain('an-extra-secret-value');
    // The extra secrets go into the redactor only: the plan does not carry them on.
    expect(Object.keys(plan)).not.toContain('secrets');
    const own = new Redactor();
    expect(planRun({ config, scenarios: [], redactor: own }).redactor).toBe(own);
  });

  it('withConfig: the same plan (seed, redactor) with another config, frozen too', () => {
    const plan = planRun({ config, scenarios: [], seed: 5 });
    const other = withConfig(plan, { ...config, issuer: 'https://other.test' });
    expect(other).toMatchObject({ seed: 5, redactor: plan.redactor });
    expect(other.config.issuer).toBe('https://other.test');
    expect(plan.config.issuer).toBe('https://idp.test');
    expect(Object.isFrozen(other)).toBe(true);
  });
});
