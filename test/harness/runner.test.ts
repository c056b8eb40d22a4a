import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import { CheckFailure, PreconditionError, TargetUnreachableError } from '../../harness/model/failures.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import type { ProfileName, ScenarioResult } from '../../harness/model/results.ts';
import { scenarioSeed } from '../../harness/run/setup.ts';
import { runScenarios, sharedStateOf } from '../../harness/run/runner.ts';
import {
  type Requirement,
  type Scenario,
  type ScenarioContext,
  type ScenarioDefinition,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import type { DriverEnvironment } from '../../harness/login/index.ts';
import { targetFromDiscovery } from '../../harness/target/target.ts';
import { exitCodeFor } from '../../cli/run-options.ts';
import { closedPort } from '../support/ports.ts';
import { type RunSettings, planRun } from '../../harness/run/plan.ts';

const issuer = 'https://idp.test';
const discovery = {
  issuer,
  token_endpoint: `${issuer}/token`,
  authorization_endpoint: `${issuer}/auth`,
  jwks_uri: `${issuer}/jwks`,
  grant_types_supported: ['authorization_code', 'client_credentials'],
  code_challenge_methods_supported: ['S256'],
};
const fullConfig = {
  issuer,
  clients: {
    confidential: { clientId: 'web', clientSecret: 'web-secret-1', redirectUri: 'https://app.test/cb' },
    machine: { clientId: 'm', clientSecret: 'machine-secret-1' },
  },
  user: { username: 'alice', password: 'alice-password-1' },
};
const MUST = {
  rfc6749_4_1: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' },
} as const satisfies Record<string, Requirement>;

function scenario(id: string, run: ScenarioDefinition['run'], extra: Partial<ScenarioDefinition> = {}): Scenario {
  return defineScenario({ id, title: `title of ${id}`, requirements: MUST, severity: 'medium', run, ...extra });
}

async function run(
  scenarios: Scenario[],
  options: RunSettings & { rawConfig?: object; disco?: Record<string, unknown> | null } = {},
) {
  const { rawConfig, disco, ...settings } = options;
  const config = validateConfig(rawConfig ?? fullConfig, {});
  const target =
    disco === null
      ? targetFromDiscovery(issuer, `${issuer}/.well-known/openid-configuration`, null, 'GET … answered 404, not 200')
      : targetFromDiscovery(issuer, `${issuer}/.well-known/openid-configuration`, disco ?? discovery);
  const plan = planRun({ scenarios, config, redactor: new Redactor(), seed: 7, ...settings });
  const outcome = await runScenarios(plan, target);
  return {
    ...outcome,
    byId: Object.fromEntries(outcome.results.map((r) => [r.id, r])) as Record<string, ScenarioResult>,
  };
}

describe('statuses', () => {
  it('passed, failed (MUST), warning (SHOULD), error (thrown, precondition), skipped (ctx.skip)', async () => {
    const { byId } = await run([
      scenario('a.pass', () => {}),
      scenario('a.must', () => {
        throw new CheckFailure('The IdP did X; RFC 6749 §4.1 requires Y.');
      }),
      scenario(
        'a.should',
        () => {
          throw new CheckFailure('did X');
        },
        { requirements: { rfc6749_10_12: { spec: 'RFC 6749', section: '10.12', level: 'SHOULD', party: 'server' } } },
      ),
      scenario('a.throws', () => {
        throw new TypeError('boom');
      }),
      scenario('a.precondition', () => {
        throw new PreconditionError('login failed');
      }),
      scenario('a.unreachable', () => {
        throw new TargetUnreachableError('https://idp.test/token', 'connection refused (ECONNREFUSED)');
      }),
      scenario('a.skips', (ctx) => ctx.skip('the IdP offers no refresh tokens')),
    ]);
    expect(byId['a.pass']).toMatchObject({ status: 'passed', level: 'MUST', area: 'a' });
    expect(byId['a.pass']!.message).toBeUndefined();
    expect(byId['a.must']).toMatchObject({ status: 'failed', message: 'The IdP did X; RFC 6749 §4.1 requires Y.' });
    expect(byId['a.should']).toMatchObject({ status: 'warning', level: 'SHOULD' });
    expect(byId['a.throws']).toMatchObject({
      status: 'error',
      message: 'the scenario threw TypeError: boom (a bug in the scenario or the harness)',
    });
    expect(byId['a.precondition']).toMatchObject({
      status: 'error',
      message: 'could not get as far as the check: login failed',
    });
    expect(byId['a.unreachable']).toMatchObject({
      status: 'error',
      message: 'the target stopped answering: cannot reach https://idp.test/token: connection refused (ECONNREFUSED)',
    });
    expect(byId['a.skips']).toMatchObject({ status: 'skipped', skipReason: 'the IdP offers no refresh tokens' });
  });

  it('a scenario that outlives its time limit is an error, and its requests are aborted', async () => {
    let aborted = false;
    const { byId } = await run([
      scenario(
        'slow.one',
        async (ctx) => {
          await new Promise<void>((resolve) =>
            ctx.signal.addEventListener('abort', () => {
              aborted = true;
              resolve();
            }),
          );
          await new Promise(() => {});
        },
        { timeoutMs: 50 },
      ),
    ]);
    expect(byId['slow.one']).toMatchObject({ status: 'error' });
    expect(byId['slow.one']!.message).toMatch(/^did not finish within 50 ms/);
    expect(aborted).toBe(true);
  });

  it('ctx.waits: allowed only with withWaits (or timeouts.withWaits); a wait lengthens its limit', async () => {
    const allowed: Record<string, boolean> = {};
    const waiting = scenario(
      'waits.one',
      async (ctx) => {
        allowed[String(ctx.waits.allowed)] = true;
        if (ctx.waits.allowed) await ctx.waits.wait(200, 'a lifetime to wait out');
      },
      { timeoutMs: 100 },
    );
    expect((await run([waiting])).byId['waits.one']).toMatchObject({ status: 'passed' });
    const { byId } = await run([waiting], { withWaits: true });
    expect(byId['waits.one'], byId['waits.one']?.message).toMatchObject({ status: 'passed' });
    expect(byId['waits.one']!.evidence).toContainEqual({ kind: 'note', text: 'Waited 0.2 s: a lifetime to wait out' });
    expect(allowed).toEqual({ false: true, true: true });
    const fromConfig = await run([waiting], { rawConfig: { ...fullConfig, timeouts: { withWaits: true } } });
    expect(fromConfig.byId['waits.one']!.durationMs).toBeGreaterThanOrEqual(190);
  });

  it('a failure naming a SHOULD requirement is a warning; soft checks go on and the worst wins', async () => {
    const reqs = {
      single: { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', party: 'server' },
      revoke: { spec: 'RFC 6749', section: '10.5', level: 'SHOULD', party: 'server' },
    } as const;
    const { byId } = await run([
      scenario(
        's.named-should',
        (ctx) => {
          throw new CheckFailure('x', { requirement: ctx.req.revoke });
        },
        { requirements: reqs },
      ),
      scenario(
        's.soft-should',
        async (ctx) => {
          expect(
            await ctx.softly(
              () => {
                throw new CheckFailure('soft one');
              },
              { requirement: ctx.req.revoke },
            ),
          ).toBe(false);
          expect(await ctx.softly(() => {})).toBe(true);
        },
        { requirements: reqs },
      ),
      scenario(
        's.soft-then-must',
        async (ctx) => {
          await ctx.softly(
            () => {
              throw new CheckFailure('should part');
            },
            { requirement: ctx.req.revoke },
          );
          throw new CheckFailure('must part');
        },
        { requirements: reqs },
      ),
    ]);
    expect(byId['s.named-should']).toMatchObject({ status: 'warning', level: 'MUST' });
    expect(byId['s.soft-should']).toMatchObject({
      status: 'warning',
      message: 'soft one',
      findings: [{ status: 'warning', message: 'soft one', requirement: 'RFC 6749 §10.5' }],
    });
    expect(byId['s.soft-then-must']).toMatchObject({ status: 'failed', message: 'must part' });
  });
});

describe('gating', () => {
  it('skips for a missing role, a missing user, an unadvertised capability, unreadable discovery', async () => {
    const scenarios = [
      scenario('g.role', () => {}, { requires: { roles: ['public', 'device'] } }),
      scenario('g.user', () => {}, { requires: { user: true } }),
      scenario('g.cap', () => {}, {
        requires: { capabilities: ['grant:urn:ietf:params:oauth:grant-type:device_code', 'endpoint:revocation'] },
      }),
      scenario('g.ok', () => {}, { requires: { roles: ['machine'], capabilities: ['grant:client_credentials'] } }),
    ];
    const { byId } = await run(scenarios, { rawConfig: { issuer, clients: { machine: fullConfig.clients.machine } } });
    expect(byId['g.role']!.skipReason).toBe(
      'needs the public and device clients (clients.public, clients.device in the target config)',
    );
    expect(byId['g.user']!.skipReason).toBe(
      'needs a user who can log in (user.username and user.password in the target config)',
    );
    expect(byId['g.cap']!.skipReason).toBe(
      'the grant type "urn:ietf:params:oauth:grant-type:device_code" is not advertised: discovery\'s ' +
        'grant_types_supported is ["authorization_code","client_credentials"]; ' +
        'if the IdP supports it, set "discoveryOverrides": { "grant_types_supported": ' +
        '["authorization_code","client_credentials","urn:ietf:params:oauth:grant-type:device_code"] } in the ' +
        'target config; ' +
        'discovery has no revocation_endpoint; if the IdP has one, set "discoveryOverrides": { ' +
        '"revocation_endpoint": "<its URL>" } in the target config',
    );
    expect(byId['g.ok']!.status).toBe('passed');
    const noDisco = await run([scenarios[3]!], { disco: null });
    expect(noDisco.byId['g.ok']!.skipReason).toBe(
      'the discovery document could not be read (GET … answered 404, not 200), so it cannot tell the grant type ' +
        '"client_credentials" (grant_types_supported)',
    );
  });

  it('uses OIDC Discovery defaults for absent fields', async () => {
    const { byId } = await run(
      [
        scenario('d.code', () => {}, {
          requires: { capabilities: ['grant:authorization_code', 'auth:client_secret_basic'] },
        }),
        scenario('d.cc', () => {}, { requires: { capabilities: ['grant:client_credentials'] } }),
      ],
      { disco: { issuer } },
    );
    expect(byId['d.code']!.status).toBe('passed');
    expect(byId['d.cc']!.status).toBe('skipped');
  });
});

describe('profiles and levels', () => {
  const rotation = {
    requirements: {
      spec: { spec: 'SPEC', section: 'Token endpoint', level: 'MUST', party: 'server', note: 'rule 2' },
      bcp: { spec: 'RFC 9700', section: '2.2.2', level: 'MUST', party: 'server', roles: ['public'] },
    },
  } as const;
  const levels = async (profile: ProfileName) =>
    (
      await run(
        [
          scenario(
            'p.spec-only',
            () => {
              throw new CheckFailure('x');
            },
            { requirements: { endpoints: { spec: 'SPEC', section: 'Endpoints', level: 'MUST', party: 'server' } } },
          ),
          scenario(
            'p.mixed',
            () => {
              throw new CheckFailure('x');
            },
            {
              requirements: {
                errors: { spec: 'SPEC', section: 'Errors', level: 'MUST', party: 'server' },
                rfc: { spec: 'RFC 6749', section: '5.2', level: 'SHOULD', party: 'server' },
              },
            },
          ),
          scenario('p.rotation-confidential', () => {}, { ...rotation, requires: { roles: ['confidential'] } }),
          scenario('p.rotation-public', () => {}, {
            requirements: rotation.requirements,
            requires: { roles: ['public'] },
          }),
        ],
        {
          profile,
          rawConfig: {
            ...fullConfig,
            clients: { ...fullConfig.clients, public: { clientId: 'spa', redirectUri: 'https://spa.test/cb' } },
          },
        },
      )
    ).byId;

  it('spec: SPEC and the RFCs count; the strictest level wins', async () => {
    const byId = await levels('spec');
    expect(byId['p.spec-only']).toMatchObject({ status: 'failed', level: 'MUST' });
    expect(byId['p.mixed']).toMatchObject({ status: 'failed', level: 'MUST' });
    expect(byId['p.rotation-confidential']).toMatchObject({ status: 'passed', level: 'MUST' });
  });

  it('rfc: SPEC does not count; role-limited requirements apply only to their roles', async () => {
    const byId = await levels('rfc');
    expect(byId['p.spec-only']).toMatchObject({
      status: 'skipped',
      skipReason: 'no document of the rfc profile requires this; it cites SPEC › Endpoints',
    });
    expect(byId['p.mixed']).toMatchObject({ status: 'warning', level: 'SHOULD' });
    expect(byId['p.rotation-confidential']!.status).toBe('skipped');
    expect(byId['p.rotation-confidential']!.skipReason).toBe(
      'no document of the rfc profile requires this of the client roles it exercises (confidential); it cites SPEC ' +
        '› Token endpoint (rule 2), RFC 9700 §2.2.2',
    );
    expect(byId['p.rotation-public']).toMatchObject({ status: 'passed', level: 'MUST' });
    expect(byId['p.rotation-public']!.requirements.map((r) => [r.label, r.applies, r.url ?? null])).toEqual([
      ['SPEC › Token endpoint (rule 2)', false, null],
      ['RFC 9700 §2.2.2', true, 'https://www.rfc-editor.org/rfc/rfc9700#section-2.2.2'],
    ]);
  });

  it(
    'ctx.applies tells a scenario which of its requirements count, so a check only one document demands ' +
      'runs only then',
    async () => {
      const seen: Record<string, Array<[string, boolean]>> = {};
      const probe = scenario(
        'p.applies',
        (ctx) => {
          seen[ctx.profile] = [ctx.req.spec!, ctx.req.bcp!].map((ref) => [ref.label, ctx.applies(ref)]);
          void ctx.req.single;
        },
        { requirements: rotation.requirements, requires: { roles: ['public'] } },
      );
      const config = {
        rawConfig: {
          ...fullConfig,
          clients: { ...fullConfig.clients, public: { clientId: 'spa', redirectUri: 'https://spa.test/cb' } },
        },
      };
      const spec = (await run([probe], { ...config, profile: 'spec' })).byId['p.applies']!;
      await run([probe], { ...config, profile: 'rfc' });
      expect(seen).toEqual({
        spec: [
          ['SPEC › Token endpoint (rule 2)', true],
          ['RFC 9700 §2.2.2', true],
        ],
        rfc: [
          ['SPEC › Token endpoint (rule 2)', false],
          ['RFC 9700 §2.2.2', true],
        ],
      });
      // A requirement the scenario does not declare is a bug in the scenario, not a verdict on the target.
      expect(spec).toMatchObject({ status: 'error' });
      expect(spec.message).toContain(
        'cites the requirement "single", which it does not declare (it declares spec, bcp)',
      );
    },
  );
});

describe('selection, expected failures, concurrency, seeds', () => {
  it('--only and --skip take globs', async () => {
    const all = ['pkce.a', 'pkce.b', 'code.a', 'code.b'].map((id) => scenario(id, () => {}));
    expect((await run(all, { only: ['pkce.*', 'code.a'], skip: ['*.b'] })).results.map((r) => r.id)).toEqual([
      'pkce.a',
      'code.a',
    ]);
  });

  it('an expected failure is marked and does not fail the run; an expected failure that passes is noted', async () => {
    const outcome = await run(
      [
        scenario('x.fails', () => {
          throw new CheckFailure('known gap');
        }),
        scenario('x.passes', () => {}),
      ],
      { rawConfig: { ...fullConfig, expectedFailures: ['x.fails', 'x.passes', 'x.unknown'] } },
    );
    expect(outcome.byId['x.fails']).toMatchObject({ status: 'failed', expected: true });
    expect(outcome.byId['x.passes']).toMatchObject({ status: 'passed', unexpectedPass: true });
    expect(outcome.notices).toEqual(['expectedFailures lists "x.unknown", which is not a known scenario id']);
    const report = { results: outcome.results } as Parameters<typeof exitCodeFor>[0];
    expect(exitCodeFor(report)).toBe(0);
    const unexpected = await run([
      scenario('x.fails', () => {
        throw new CheckFailure('gap');
      }),
    ]);
    expect(exitCodeFor({ results: unexpected.results } as Parameters<typeof exitCodeFor>[0])).toBe(1);
  });

  it('--fail-on decides whether warnings and errors fail the run', async () => {
    const { results } = await run([
      scenario(
        'w.warn',
        () => {
          throw new CheckFailure('x');
        },
        { requirements: { rfc6749_1: { spec: 'RFC 6749', section: '1', level: 'SHOULD', party: 'server' } } },
      ),
      scenario('w.err', () => {
        throw new Error('x');
      }),
    ]);
    const report = { results } as Parameters<typeof exitCodeFor>[0];
    expect([
      exitCodeFor(report, 'failed'),
      exitCodeFor(report, 'warning'),
      exitCodeFor({ results: [results[1]!] } as typeof report, 'warning'),
      exitCodeFor(report, 'error'),
    ]).toEqual([0, 1, 0, 1]);
  });

  it(
    'keeps at most --concurrency scenarios in flight, runs exclusive ones alone, reports in ' + 'catalog order',
    async () => {
      let inFlight = 0;
      let peak = 0;
      let overlappedExclusive = false;
      const body = async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 15));
        inFlight--;
      };
      const scenarios = Array.from({ length: 8 }, (_, i) => scenario(`c.n${i}`, body));
      scenarios.splice(
        3,
        0,
        scenario(
          'c.exclusive',
          async () => {
            if (inFlight > 0) overlappedExclusive = true;
            await body();
          },
          { exclusive: true },
        ),
      );
      const { results } = await run(scenarios, { concurrency: 3 });
      expect(peak).toBe(3);
      expect(overlappedExclusive).toBe(false);
      expect(results.map((r) => r.id)).toEqual(scenarios.map((s) => s.id));
    },
  );

  it('never runs two scenarios that act as the user at once; one without the user runs beside them', async () => {
    const running = new Set<string>();
    let usersAtOnce = 0;
    let besideUser = false;
    const body = (id: string, ms: number) => async () => {
      running.add(id);
      if (id.startsWith('u.'))
        usersAtOnce = Math.max(usersAtOnce, [...running].filter((r) => r.startsWith('u.')).length);
      else besideUser ||= [...running].some((r) => r.startsWith('u.'));
      await new Promise((r) => setTimeout(r, ms));
      running.delete(id);
    };
    const user = { requires: { user: true } };
    const scenarios = [
      ...['u.a', 'u.b', 'u.c', 'u.d'].map((id) => scenario(id, body(id, 30), user)),
      scenario('n.free', body('n.free', 10)),
    ];
    const { results } = await run(scenarios, { concurrency: 4 });
    expect(results.map((r) => r.status)).toEqual(['passed', 'passed', 'passed', 'passed', 'passed']);
    expect(usersAtOnce).toBe(1);
    expect(besideUser).toBe(true);
    // A scenario whose gate may sign the user in (the refresh probe) takes the same lock; any other none.
    expect(sharedStateOf({ requires: { capabilities: ['grant:refresh_token'] } })).toBe('user');
    expect(sharedStateOf({ requires: { capabilities: ['endpoint:authorization'], user: false } })).toBeUndefined();
    expect(sharedStateOf({})).toBeUndefined();
  });

  it("the wait for the user's lock does not count against a scenario's time limit", async () => {
    let slowEnded = 0;
    let quickStarted = 0;
    const slow = scenario(
      'u.slow',
      async () => {
        await new Promise((r) => setTimeout(r, 300));
        slowEnded = performance.now();
      },
      { requires: { user: true } },
    );
    const quick = scenario(
      'u.quick',
      async () => {
        quickStarted = performance.now();
        await new Promise((r) => setTimeout(r, 20));
      },
      { requires: { user: true }, timeoutMs: 200 },
    );
    const { byId } = await run([slow, quick], { concurrency: 2 });
    // It waited 300 ms for the lock, longer than its own 200 ms limit, and was judged all the same.
    expect(quickStarted).toBeGreaterThanOrEqual(slowEnded);
    expect(byId['u.quick']).toMatchObject({ status: 'passed' });
  });

  it('an error met beside other scenarios is run again alone, and the alone result is the verdict', async () => {
    let inFlight = 0;
    const runs: Record<string, number> = {};
    const counted = (id: string, body: () => void) => async () => {
      runs[id] = (runs[id] ?? 0) + 1;
      inFlight++;
      try {
        await new Promise((r) => setTimeout(r, 20));
        body();
      } finally {
        inFlight--;
      }
    };
    // Errs only beside another scenario (the interference), passes alone.
    const crowded = scenario(
      'i.crowded',
      counted('i.crowded', () => {
        if (inFlight > 1) throw new PreconditionError('grant not found');
      }),
    );
    // Fails beside another: a failure is evidence and is not run again.
    const failing = scenario(
      'i.fails',
      counted('i.fails', () => {
        if (inFlight > 1) throw new CheckFailure('The IdP did X; RFC 6749 §4.1 requires Y.');
      }),
    );
    const other = scenario(
      'i.other',
      counted('i.other', () => {}),
    );
    const { byId } = await run([crowded, failing, other], { concurrency: 3 });
    expect(byId['i.crowded']).toMatchObject({ status: 'passed' });
    expect(byId['i.crowded']!.log?.[0]).toBe(
      'run again alone after the others: beside other scenarios it ended error: ' +
        'could not get as far as the check: grant not found',
    );
    expect(runs).toEqual({ 'i.crowded': 2, 'i.fails': 1, 'i.other': 1 });
    expect(byId['i.fails']).toMatchObject({ status: 'failed' });

    // Alone from the start (concurrency 1): the error is the verdict, not run again.
    const alone = scenario(
      'i.alone',
      counted('i.alone', () => {
        throw new PreconditionError('grant not found');
      }),
    );
    const single = await run([alone, other], { concurrency: 1 });
    expect(single.byId['i.alone']).toMatchObject({ status: 'error' });
    expect(single.byId['i.alone']!.log).toBeUndefined();
    expect(runs['i.alone']).toBe(1);
  });

  it(
    'derives a per-scenario seed from the run seed; properties report a replayable shrunk ' + 'counterexample',
    async () => {
      const seen: number[] = [];
      const prop = scenario('prop.small', async (ctx) => {
        seen.push(ctx.seed);
        await ctx.property(
          fc.integer({ min: 0, max: 1000 }),
          async (n) => {
            if (n >= 10) throw new CheckFailure(`${n} is too big; the rule requires < 10`);
          },
          { label: 'integers' },
        );
      });
      const a = await run([prop], { seed: 99, runs: 40 });
      const b = await run([prop], { seed: 99, runs: 40 });
      expect(seen[0]).toBe(scenarioSeed(99, 'prop.small'));
      expect(seen[0]).toBe(seen[1]);
      const r = a.byId['prop.small']!;
      expect(r.status).toBe('failed');
      expect(r.message).toMatch(
        /^10 is too big; the rule requires < 10 \(counterexample 10, found within (1 run|\d+ runs)\)$/,
      );
      const cx = r.evidence.find((e) => e.kind === 'counterexample');
      expect(cx).toMatchObject({
        kind: 'counterexample',
        value: '10',
        runs: 40,
        replay: '--seed 99 --runs 40 --only prop.small',
        seed: seen[0],
      });
      expect(b.byId['prop.small']!.evidence).toEqual(r.evidence);
    },
  );

  it("--runs overrides each property's own run count; without it the replay needs no --runs", async () => {
    const counted: number[] = [];
    const prop = scenario('prop.own-runs', async (ctx) => {
      let n = 0;
      await ctx.property(
        fc.integer({ min: 0, max: 1000 }),
        async () => {
          n++;
        },
        { runs: 5 },
      );
      counted.push(n);
      await ctx.property(
        fc.integer({ min: 0, max: 1000 }),
        async (v) => {
          if (v >= 10) throw new CheckFailure(`${v} is too big`);
        },
        { runs: 5, show: (v) => `the number ${v}` },
      );
    });
    const own = (await run([prop], { seed: 99 })).byId['prop.own-runs']!;
    const given = (await run([prop], { seed: 99, runs: 12 })).byId['prop.own-runs']!;
    expect(counted).toEqual([5, 12]);
    expect(own.evidence.find((e) => e.kind === 'counterexample')).toMatchObject({
      runs: 5,
      value: 'the number 10',
      replay: '--seed 99 --only prop.own-runs',
    });
    expect(given.evidence.find((e) => e.kind === 'counterexample')).toMatchObject({
      runs: 12,
      value: 'the number 10',
      replay: '--seed 99 --runs 12 --only prop.own-runs',
    });
  });

  it('the replay options reproduce the same counterexample in a run of that scenario alone', async () => {
    const scenarios = ['prop.a', 'prop.b', 'prop.c'].map((id) =>
      scenario(id, async (ctx) => {
        await ctx.property(fc.string(), async (s) => {
          if (s.length >= 3) throw new CheckFailure(`${JSON.stringify(s)} is long`);
        });
      }),
    );
    const all = await run(scenarios, { seed: 4242 });
    for (const id of ['prop.a', 'prop.b', 'prop.c']) {
      const cx = all.byId[id]!.evidence.find((e) => e.kind === 'counterexample')!;
      const replay = cx.kind === 'counterexample' ? cx.replay : '';
      const [, seed, only] = /^--seed (\d+) --only (\S+)$/.exec(replay)!;
      const alone = await run(scenarios, { seed: Number(seed), only: [only!] });
      expect(alone.results).toHaveLength(1);
      expect(alone.byId[id]!.evidence.find((e) => e.kind === 'counterexample')).toEqual(cx);
    }
  });
});

describe('unreachable targets', () => {
  it('runSuite throws TargetUnreachableError when discovery cannot be reached', async () => {
    const port = await closedPort();
    const config = validateConfig({ issuer: `http://127.0.0.1:${port}` }, {});
    const error = await runSuite(planRun({ config, scenarios: [] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TargetUnreachableError);
    expect((error as Error).message).toBe(
      `cannot reach http://127.0.0.1:${port}/.well-known/openid-configuration: connection refused (ECONNREFUSED)`,
    );
  });
});

describe('time: property budgets, the limit in the browser, what a timeout was doing', () => {
  it('a property runs the cases that fit its budget, judges those and says how many ran', async () => {
    let ran = 0;
    const { byId } = await run([
      scenario('prop.slow', async (ctx) => {
        await ctx.property(
          fc.integer(),
          async () => {
            ran++;
            await new Promise((r) => setTimeout(r, 100));
          },
          { runs: 50, budgetMs: 300, label: 'slow cases' },
        );
      }),
    ]);
    expect(byId['prop.slow']).toMatchObject({ status: 'passed' });
    expect(ran).toBeGreaterThanOrEqual(1);
    expect(ran).toBeLessThan(50);
    const note = byId['prop.slow']!.evidence.find((e) => e.kind === 'note' && e.label === 'property time budget');
    expect(note).toMatchObject({
      text:
        `The property "slow cases" ran ${ran} of 50 cases within its time budget of 300 ms; those ${ran} were ` +
        `judged, the rest not run (raise timeouts.scenarioMs, or pass --runs, to run more).`,
    });
  });

  it('a counterexample among the cases that fit still fails the property', async () => {
    const { byId } = await run([
      scenario('prop.slow-fail', async (ctx) => {
        await ctx.property(
          fc.constant(3),
          async (n) => {
            await new Promise((r) => setTimeout(r, 50));
            throw new CheckFailure(`${n} is odd; the rule wants even`);
          },
          { runs: 50, budgetMs: 200 },
        );
      }),
    ]);
    expect(byId['prop.slow-fail']).toMatchObject({ status: 'failed' });
  });

  it('a property takes no screenshots while its cases run; its counterexample runs again to take them', async () => {
    let shots = 0;
    const page = {
      screenshot: async () => {
        shots++;
        return new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
      },
    };
    // A driver that takes a screenshot on every walk, as the browser driver does on each page.
    const shooting = (_http: unknown, _config: unknown, env: DriverEnvironment) => ({
      name: 'shooting',
      authorize: async (url: string) => {
        await env.recorder.screenshot(page as never, 'authorization request');
        const n = Number(new URL(url).searchParams.get('x_n'));
        return {
          kind: 'redirect' as const,
          url: `https://app.test/cb?code=c-${n}`,
          params: { code: `c-${n}` },
          pages: [],
        };
      },
      activateDevice: () => Promise.reject(new Error('no devices here')),
    });
    const walkEach = (fail: (n: number) => boolean) => async (ctx: ScenarioContext) => {
      await ctx.property(
        fc.integer({ min: 0, max: 99 }),
        async (n) => {
          await ctx.authorize('confidential', { x_n: String(n) });
          if (fail(n)) throw new CheckFailure(`case ${n} failed`);
        },
        { runs: 20 },
      );
      await ctx.authorize('confidential', { x_n: '0' }); // outside the property: shot as always
    };
    const needs = { requires: { roles: ['confidential' as const], user: true } };
    const { byId } = await run(
      [
        scenario(
          'prop.shots-pass',
          walkEach(() => false),
          needs,
        ),
      ],
      { loginDriver: shooting as never },
    );
    expect(byId['prop.shots-pass']).toMatchObject({ status: 'passed' });
    expect(shots).toBe(1); // 20 cases, none shot; the walk after the property, shot
    shots = 0;
    const failing = await run(
      [
        scenario(
          'prop.shots-fail',
          walkEach((n) => n >= 10),
          needs,
        ),
      ],
      { loginDriver: shooting as never },
    );
    const result = failing.byId['prop.shots-fail']!;
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.message).toMatch(/counterexample 10/);
    // The counterexample (shrunk to 10), once more with its screenshot; the code after the property never ran.
    expect(shots).toBe(1);
    const kinds = result.evidence.map((e) => (e.kind === 'note' ? `note: ${e.label}` : e.kind));
    expect(kinds).toContain('note: counterexample screenshots');
    expect(kinds).toContain('screenshot');
    const note = result.evidence.find((e) => e.kind === 'note' && e.label === 'counterexample screenshots');
    expect(note).toMatchObject({ text: expect.stringMatching(/failed again/) });
  });

  it(
    'the default limit scales for a browser login; the timeout names what was in flight and ' + 'what finished',
    async () => {
      const hanging = {
        name: 'hanging',
        authorize: () => new Promise<never>(() => {}),
        activateDevice: () => new Promise<never>(() => {}),
      };
      const { byId } = await run(
        [
          scenario(
            'slow.login',
            async (ctx) => {
              await ctx.authorize('confidential');
            },
            { timeoutMs: 40, requires: { roles: ['confidential'], user: true } },
          ),
        ],
        {
          rawConfig: { ...fullConfig, login: { driver: 'browser' } },
          loginDriver: () => hanging,
        },
      );
      expect(byId['slow.login']).toMatchObject({ status: 'error' });
      expect(byId['slow.login']!.message).toMatch(
        new RegExp(
          /^did not finish within 120 ms \(finished: 0 HTTP exchanges; /.source +
            /in flight: hanging login walk \(https:\/\/idp\.test\/auth\) \(for \d+ s\)\)/.source,
        ),
      );
    },
  );
});
