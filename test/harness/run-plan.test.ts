/**
 * The run plan (harness/run/plan.ts): the settings resolved once with their defaults, the selection computed once,
 * the target and clients planned once; all of it deeply frozen, and a run leaves it as it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateConfig } from '../../harness/config/load.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { isDeepFrozen } from '../../harness/run/freeze.ts';
import { DEFAULTS, planRun, planTarget } from '../../harness/run/plan.ts';
import { runScenarios } from '../../harness/run/runner.ts';
import { defineScenario } from '../../harness/scenario/scenario.ts';
import { resolveTarget } from '../../harness/target/discovery.ts';
import { targetFromDiscovery } from '../../harness/target/target.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StubIdp, startStubIdp } from '../support/stub-idp.ts';

const config = validateConfig(
  {
    issuer: 'https://idp.test',
    clients: {
      confidential: { clientId: 'web', clientSecret: 'web-secret-value-1', redirectUri: 'https://a.test/cb' },
    },
  },
  {},
);

const requirements = { r: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' } } as const;
const scenarios = ['a.one', 'a.two', 'b.one', 'b.two', 'c.one'].map((id) =>
  defineScenario({ id, title: id, requirements, severity: 'low', run: () => undefined }),
);

/** The plan as data: Sets and Maps as lists, handles and functions by name, accessors read. */
function snapshot(value: unknown, seen = new Set<object>()): unknown {
  if (typeof value === 'function') return `[function ${value.name}]`;
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[seen]';
  seen.add(value);
  if (value instanceof Map) return ['Map', ...[...value.entries()].map((e) => snapshot(e, seen))];
  if (value instanceof Set) return ['Set', ...[...value.values()].map((e) => snapshot(e, seen))];
  if (Array.isArray(value)) return value.map((e) => snapshot(e, seen));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return `[${proto.constructor.name}]`;
  return Object.fromEntries(Object.keys(value).map((k) => [k, snapshot(Reflect.get(value, k), seen)]));
}

describe('planRun: the settings and the selection', () => {
  it('applies the defaults: profile spec, a seed, DEFAULTS.runs and concurrency, the whole catalog selected', () => {
    const plan = planRun({ config, scenarios });
    expect(plan).toMatchObject({
      profile: 'spec',
      runs: DEFAULTS.runs,
      runsGiven: false,
      concurrency: DEFAULTS.concurrency,
      plantedFlaws: [],
      selection: { only: [], skip: [], shard: undefined },
    });
    expect(plan.selection.scenarios).toEqual(scenarios);
    expect(Number.isInteger(plan.seed) && plan.seed >= 0 && plan.seed <= 0x7fffffff).toBe(true);
  });

  it('keeps what was given; runs given overrides every property', () => {
    const plan = planRun({ config, scenarios, profile: 'fapi2', seed: 0, runs: 3, concurrency: 1 });
    expect(plan).toMatchObject({ profile: 'fapi2', seed: 0, runs: 3, runsGiven: true, concurrency: 1 });
  });

  it('the selection, once: --only and --skip, then the shard; the shards together are the selection', () => {
    const plan = planRun({ config, scenarios, only: ['a.*', 'b.*'], skip: ['b.two'] });
    expect(plan.selection.matching.map((s) => s.id)).toEqual(['a.one', 'a.two', 'b.one']);
    expect(plan.selection.scenarios).toEqual(plan.selection.matching);
    const parts = [1, 2].map(
      (index) =>
        planRun({ config, scenarios, only: ['a.*', 'b.*'], skip: ['b.two'], shard: { index, total: 2 } }).selection,
    );
    for (const part of parts) expect(part.matching).toEqual(plan.selection.matching);
    const ids = parts.flatMap((p) => p.scenarios.map((s) => s.id));
    expect(ids.sort()).toEqual(['a.one', 'a.two', 'b.one']);
    expect(parts.every((p) => p.scenarios.length > 0)).toBe(true);
  });

  it('extraScenarios join the scenarios', () => {
    const plan = planRun({ config, scenarios: scenarios.slice(0, 2), extraScenarios: scenarios.slice(2) });
    expect(plan.scenarios.map((s) => s.id)).toEqual(scenarios.map((s) => s.id));
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

  it("is deeply frozen, and owns its data: the caller's config and lists are not frozen", () => {
    const only = ['a.*'];
    const plan = planRun({ config, scenarios, only });
    expect(isDeepFrozen(plan)).toBe(true);
    expect(Object.isFrozen(config)).toBe(false);
    expect(Object.isFrozen(only)).toBe(false);
    expect(() => {
      (plan as { seed: number }).seed = 1;
    }).toThrow(TypeError);
    expect(() => (plan.selection.scenarios as unknown[]).push(scenarios[0])).toThrow(TypeError);
    expect(() => {
      (plan.config as { issuer: string }).issuer = 'https://other.test';
    }).toThrow(TypeError);
  });
});

describe('planTarget and a run: the plan is made once and only read', () => {
  let stub: StubIdp | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('the target, its kind and the clients are in the plan, frozen; a run changes none of it', async () => {
    stub = await startStubIdp();
    const chosen = ['discovery.document', 'code.happy-path', 'client-credentials.issues-token'];
    const before = planRun({
      config: validateConfig(stub.config, {}),
      scenarios: BUILT_IN_SCENARIOS,
      only: chosen,
      seed: 41,
    });
    const target = await resolveTarget(before.config, before.redactor, before);
    const planned = planTarget(before, { target });
    expect(isDeepFrozen(planned)).toBe(true);
    expect(planned.target.kind.protocol).toBe('oidc');
    expect(planned.clients.confidential?.clientId).toBe(before.config.clients.confidential?.clientId);
    expect(planned.selection.scenarios.map((s) => s.id).sort()).toEqual([...chosen].sort());

    // Mutation throws (ES modules are strict): the kind, a client, the capabilities, the selection.
    expect(() => {
      (planned.target as { kind: unknown }).kind = { protocol: 'oauth2', why: 'rewritten', by: 'behaviour' };
    }).toThrow(TypeError);
    expect(() => {
      (planned.clients.confidential as { scope: string }).scope = 'rewritten';
    }).toThrow(TypeError);
    expect(() => (planned.target.capabilities as Set<string>).add('grant:rewritten')).toThrow(TypeError);
    expect(() => (planned.guessedScopes as Set<string>).add('public')).toThrow(TypeError);
    expect(() => (planned.selection.matching as unknown[]).pop()).toThrow(TypeError);
    // The discovery evidence is a copy per read: a scenario's recorder may mark its own.
    expect(planned.target.discoveryEvidence).not.toBe(planned.target.discoveryEvidence);

    const beforeRun = { before: snapshot(before), planned: snapshot(planned) };
    const outcome = await runScenarios(before, target);
    expect(outcome.results.map((r) => [r.id, r.status]).sort()).toEqual([...chosen].sort().map((id) => [id, 'passed']));
    // The run's own plan is the plan that was made from the same inputs, frozen as well …
    expect(isDeepFrozen(outcome.plan)).toBe(true);
    expect(snapshot(outcome.plan)).toEqual(beforeRun.planned);
    // … and the plans are as they were before the run.
    expect(snapshot(before)).toEqual(beforeRun.before);
    expect(snapshot(planned)).toEqual(beforeRun.planned);
  });

  it('a kind left a guess is settled by the probe into a new plan; the target found is not rewritten', async () => {
    stub = await startStubIdp();
    const before = planRun({ config: validateConfig(stub.config, {}), scenarios: [], seed: 42 });
    const served = z
      .record(z.string(), z.unknown())
      .parse(await (await fetch(`${stub.issuer}/.well-known/openid-configuration`)).json());
    // RFC 8414 metadata that says nothing of OpenID Connect: a guess (target.ts kindOf).
    const oidcOnly = ['id_token_signing_alg_values_supported', 'subject_types_supported', 'userinfo_endpoint'];
    const metadata = Object.fromEntries(Object.entries(served).filter(([field]) => !oidcOnly.includes(field)));
    const target = targetFromDiscovery(stub.issuer, `${stub.issuer}/.well-known/oauth-authorization-server`, metadata);
    expect(target.kind).toMatchObject({ protocol: 'oauth2', by: 'guess' });
    const guessed = snapshot(target.kind);
    const outcome = await runScenarios(before, target);
    expect(outcome.plan.target.kind).toMatchObject({ protocol: 'oidc', by: 'behaviour' });
    expect(outcome.plan.target.kind.why).toContain('returned an id_token');
    expect(isDeepFrozen(outcome.plan)).toBe(true);
    expect(snapshot(target.kind)).toEqual(guessed);
  });
});
