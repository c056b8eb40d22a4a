/** The named steps of createContext and runScenarios that carry logic of their own. */
import { describe, expect, it } from 'vitest';
import { PROPERTY_BUDGET_SHARE, PropertyCases, propertyBudgetMs } from '../../harness/context/property.ts';
import { CheckFailure, HarnessError, PreconditionError, SkipSignal } from '../../harness/model/failures.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import type { Finding } from '../../harness/model/results.ts';
import { DEFAULTS } from '../../harness/run/plan.ts';
import { runPool } from '../../harness/run/runner.ts';
import { judge } from '../../harness/scenario/status.ts';
import { unknownExpectedFailures } from '../../harness/run/selection.ts';
import { BROWSER_TIME_FACTOR, scenarioTimeLimit } from '../../harness/context/time-limit.ts';
import { defineScenario } from '../../harness/scenario/scenario.ts';

const failed = () => 'failed' as const;

describe('judge', () => {
  it('passes when nothing was thrown and nothing found', () => {
    expect(judge(undefined, [], failed, 1000)).toEqual({ status: 'passed' });
  });

  it('a CheckFailure takes its status from statusOf and keeps its kind', () => {
    const v = judge(new CheckFailure('bad', { kind: 'accepted' }), [], () => 'warning', 1000);
    expect(v).toEqual({ status: 'warning', message: 'bad', failureKind: 'accepted' });
  });

  it('a statusOf that throws (an undeclared requirement) is an error without a kind', () => {
    const v = judge(
      new CheckFailure('bad', { kind: 'accepted' }),
      [],
      () => {
        throw new HarnessError('cites an undeclared requirement');
      },
      1000,
    );
    expect(v).toEqual({ status: 'error', message: 'cites an undeclared requirement', errorCode: 'ERR_HARNESS' });
  });

  it('a skip keeps its reason', () => {
    expect(judge(new SkipSignal('not here'), [], failed, 1000)).toEqual({
      status: 'skipped',
      message: 'not here',
      skipReason: 'not here',
    });
  });

  it('the worst finding wins; among equals an accepted failure outranks a refused-wrongly one', () => {
    const findings: Finding[] = [
      { status: 'warning', message: 'soft', failureKind: 'refused-wrongly' },
      { status: 'failed', message: 'security', failureKind: 'accepted' },
    ];
    const thrown = new CheckFailure('interop', { kind: 'refused-wrongly' });
    expect(judge(thrown, findings, failed, 1000)).toEqual({
      status: 'failed',
      message: 'security',
      failureKind: 'accepted',
    });
    expect(judge(undefined, findings.slice(0, 1), failed, 1000)).toEqual({
      status: 'warning',
      message: 'soft',
      failureKind: 'refused-wrongly',
    });
  });

  it('an error outranks no finding and carries no failure kind', () => {
    const v = judge(new Error('boom'), [], failed, 1000);
    expect(v.status).toBe('error');
    expect(v.failureKind).toBeUndefined();
    expect(v.message).toMatch(/the scenario threw Error: .*boom/);
  });

  it('a failure established is never replaced by a later error or skip (the strongest evidence wins)', () => {
    const proven: Finding[] = [{ status: 'failed', message: 'plain was accepted', failureKind: 'accepted' }];
    const precondition = new PreconditionError('the second variant got no code');
    expect(judge(precondition, proven, failed, 1000)).toEqual({
      status: 'failed',
      message: 'plain was accepted',
      failureKind: 'accepted',
      cutShort: 'error: could not get as far as the check: the second variant got no code',
    });
    const soft: Finding[] = [{ status: 'warning', message: 'should', failureKind: 'refused-wrongly' }];
    expect(judge(new Error('boom'), soft, failed, 1000)).toMatchObject({ status: 'warning', message: 'should' });
    expect(judge(new Error('boom'), soft, failed, 1000).errorCode).toBeUndefined();
    expect(judge(new SkipSignal('not here'), proven, failed, 1000)).toEqual({
      status: 'failed',
      message: 'plain was accepted',
      failureKind: 'accepted',
      cutShort: 'skipped: not here',
    });
    // A CheckFailure thrown after a soft warning: the failure, not cut short.
    expect(judge(new CheckFailure('worse'), soft, failed, 1000)).toMatchObject({ status: 'failed', message: 'worse' });
    expect(judge(new CheckFailure('worse'), soft, failed, 1000).cutShort).toBeUndefined();
  });
});

describe('scenarioTimeLimit', () => {
  const run = (explicitTimeoutMs: number | undefined, driver: 'http' | 'browser' = 'http') => ({
    explicitTimeoutMs,
    timeoutMs: explicitTimeoutMs ?? DEFAULTS.scenarioTimeoutMs,
    config: { login: { driver } } as never,
  });

  it('the default limit, scaled for a browser login', () => {
    // inBrowser: the limit a walk that goes on in Chromium (the auto driver) lengthens it to.
    const inBrowser = 30_000 * BROWSER_TIME_FACTOR;
    expect(scenarioTimeLimit({}, run(undefined))).toEqual({ limit: 30_000, unscaled: 30_000, inBrowser });
    expect(scenarioTimeLimit({}, run(undefined, 'browser'))).toEqual({ limit: inBrowser, unscaled: 30_000, inBrowser });
    expect(scenarioTimeLimit({ requires: { browser: true } }, run(undefined))).toEqual({
      limit: inBrowser,
      unscaled: 30_000,
      inBrowser,
    });
  });

  it("a scenario's own limit is scaled too; an explicit run limit is taken as given", () => {
    expect(scenarioTimeLimit({ timeoutMs: 5_000 }, run(undefined, 'browser')).limit).toBe(5_000 * BROWSER_TIME_FACTOR);
    // An explicit run limit is taken as given, in the browser too.
    expect(scenarioTimeLimit({}, run(7_000, 'browser'))).toEqual({ limit: 7_000, unscaled: 7_000, inBrowser: 7_000 });
    expect(scenarioTimeLimit({ timeoutMs: 5_000 }, run(7_000))).toEqual({
      limit: 5_000,
      unscaled: 5_000,
      inBrowser: 5_000 * BROWSER_TIME_FACTOR,
    });
  });
});

describe('runPool', () => {
  it('runs every item once, at most `concurrency` at once, exclusive ones after and alone', async () => {
    const items = [
      { id: 'a' },
      { id: 'x', exclusive: true },
      { id: 'b' },
      { id: 'c' },
      { id: 'y', exclusive: true },
      { id: 'd' },
    ];
    let running = 0;
    let most = 0;
    const order: string[] = [];
    const got: string[] = [];
    await runPool(
      items,
      2,
      async (item) => {
        running++;
        most = Math.max(most, running);
        if (item.exclusive) expect(running).toBe(1);
        await new Promise((r) => setImmediate(r));
        order.push(item.id);
        running--;
        return item.id.toUpperCase();
      },
      (i, r) => {
        got[i] = r;
      },
    );
    expect(got).toEqual(['A', 'X', 'B', 'C', 'Y', 'D']);
    expect(most).toBe(2);
    expect(order.slice(-2)).toEqual(['x', 'y']);
  });

  /** Runs `items` through runPool and records, per lane, how many ran in it at once at most. */
  async function lanesOf(items: { id: string; requires?: { user: boolean } }[], lanes: number | undefined) {
    const inLane = new Map<number, number>();
    const mostInLane = new Map<number, number>();
    let users = 0;
    let mostUsers = 0;
    const laneOf: Record<string, number> = {};
    await runPool(
      items,
      8,
      async (item, lane) => {
        laneOf[item.id] = lane;
        const acting = item.requires?.user === true;
        if (acting) {
          inLane.set(lane, (inLane.get(lane) ?? 0) + 1);
          mostInLane.set(lane, Math.max(mostInLane.get(lane) ?? 0, inLane.get(lane)!));
          mostUsers = Math.max(mostUsers, ++users);
        }
        for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
        if (acting) {
          inLane.set(lane, inLane.get(lane)! - 1);
          users--;
        }
        return item.id;
      },
      () => undefined,
      lanes === undefined ? {} : { lanes },
    );
    return { mostInLane, mostUsers, laneOf };
  }

  it('one scenario per user at a time: with several users, that many at once', async () => {
    const items = [
      ...Array.from({ length: 6 }, (_, i) => ({ id: `u${i}`, requires: { user: true } })),
      { id: 'free1' },
      { id: 'free2' },
    ];
    const one = await lanesOf(items, undefined);
    expect(one.mostUsers).toBe(1);
    expect([...one.mostInLane.keys()]).toEqual([0]);
    const three = await lanesOf(items, 3);
    expect(three.mostUsers).toBe(3);
    expect([...three.mostInLane.keys()].sort()).toEqual([0, 1, 2]);
    expect(Math.max(...three.mostInLane.values())).toBe(1);
    // A scenario that takes no user lock runs in lane 0 (the run's own user, whom it never acts as).
    expect(three.laneOf.free1).toBe(0);
  });
});

describe('unknownExpectedFailures', () => {
  it('names every expectedFailures id that is no known scenario', () => {
    const s = defineScenario({
      id: 'area.known',
      title: 't',
      requirements: { r: { spec: 'RFC 6749', section: '1', level: 'MUST', party: 'server' } },
      severity: 'info',
      run: () => undefined,
    });
    expect(unknownExpectedFailures(['area.known', 'area.gone'], [s])).toEqual([
      'expectedFailures lists "area.gone", which is not a known scenario id',
    ]);
  });
});

describe('propertyBudgetMs', () => {
  it('its own budget first, else the share of the scenario limit less what was used, never under 1 ms', () => {
    expect(propertyBudgetMs({ propertyBudgetMs: 1000 }, 200, 50)).toBe(50);
    expect(propertyBudgetMs({ propertyBudgetMs: 1000 }, 200)).toBe(800);
    expect(propertyBudgetMs({ timeLimitMs: 1000 }, 100)).toBe(1000 * PROPERTY_BUDGET_SHARE - 100);
    expect(propertyBudgetMs({ propertyBudgetMs: 1000 }, 5000)).toBe(1);
    expect(propertyBudgetMs({}, 5000)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('PropertyCases', () => {
  const http = (status: number) => ({
    kind: 'http' as const,
    request: { method: 'POST', url: 'http://127.0.0.1/token?x=1', headers: {} },
    response: { status, headers: {} },
    durationMs: 1,
  });

  it('a CheckFailure is the counterexample with its transcripts; each case leaves no evidence behind', async () => {
    const recorder = new Recorder(new Redactor([]));
    const cases = new PropertyCases(recorder, Number.POSITIVE_INFINITY);
    await expect(
      cases.judge(async () => {
        recorder.evidence.push(http(400));
        throw new CheckFailure('accepted');
      }, 1),
    ).rejects.toThrow('accepted');
    expect(cases.failingRun).toEqual([http(400)]);
    expect(recorder.evidence).toEqual([]);
  });

  it('a case the target answered with 5xx is set aside, not the counterexample', async () => {
    const recorder = new Recorder(new Redactor([]));
    const cases = new PropertyCases(recorder, Number.POSITIVE_INFINITY);
    const verdict = await cases.judge(async () => {
      recorder.evidence.push(http(503));
      throw new CheckFailure('no answer');
    }, 1);
    expect(verdict).toBe(true);
    expect(cases.serverErrors).toEqual([
      { status: 503, request: 'POST http://127.0.0.1/token', evidence: [http(503)] },
    ]);
    expect(cases.failingRun).toEqual([]);
  });

  it('a harness error stops judging; past the deadline no case but the first is started', async () => {
    const recorder = new Recorder(new Redactor([]));
    const broken = new PropertyCases(recorder, Number.POSITIVE_INFINITY);
    const bug = new TypeError('bug');
    let calls = 0;
    const predicate = async () => {
      calls++;
      throw bug;
    };
    expect(await broken.judge(predicate, 1)).toBe(true);
    expect(await broken.judge(predicate, 2)).toBe(true);
    expect(broken.harnessError).toBe(bug);
    expect(calls).toBe(1);

    const late = new PropertyCases(recorder, 0);
    let ran = 0;
    for (const v of [1, 2, 3]) await late.judge(async () => void ran++, v);
    expect({ ran, begun: late.begun, skipped: late.skipped }).toEqual({ ran: 1, begun: 1, skipped: 2 });
  });
});
