/**
 * A target that stops answering mid-run: the report leads with one finding — when, after how many requests, what was
 * sent last, which scenarios could not be judged because of it — instead of a row of unrelated errors. A target that
 * drops one request and answers the next is no outage.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import { MAX_UNANSWERED_IN_A_ROW, RunStop, TargetTraffic } from '../../harness/http/traffic.ts';
import { reportSchema } from '../../reports/schema.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StubIdp, startStubIdp } from '../support/stub-idp.ts';
import { planRun } from '../../harness/run/plan.ts';

let stub: StubIdp | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const IDS = ['code.happy-path', 'code.state-round-trip', 'client-credentials.issues-token', 'token.no-store'];

describe('a target that stops answering mid-run', () => {
  it('is one finding at the top of the report: when, after how many requests, what was last sent', async () => {
    // Discovery and JWKS answer; the scenarios' requests find the listener closed after two more.
    stub = await startStubIdp({ dieAfter: 4 });
    const report = await runSuite(
      planRun({
        config: validateConfig(stub.config, {}),
        scenarios: BUILT_IN_SCENARIOS.filter((s) => IDS.includes(s.id)),
        seed: 7,
        concurrency: 1,
      }),
    );
    const errored = report.results.filter((r) => r.message?.startsWith('the target stopped answering'));
    expect(errored.length).toBeGreaterThan(0);
    expect(report.outage).toMatchObject({
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      afterRequests: expect.any(Number),
      lastSent: expect.stringMatching(/^(GET|POST) http:\/\/127\.0\.0\.1:\d+\//),
      cause: expect.any(String),
    });
    expect(report.outage?.scenarios?.sort()).toEqual(errored.map((r) => r.id).sort());
    expect(() => reportSchema.parse(report)).not.toThrow();
    expect(report.notices?.[0]).toMatch(
      /^the target stopped answering at .*, after \d+ requests of the scenarios: .* could not be judged because of it/,
    );
  }, 60_000);

  it('is no finding when the target answers to the end', async () => {
    stub = await startStubIdp();
    const report = await runSuite(
      planRun({
        config: validateConfig(stub.config, {}),
        scenarios: BUILT_IN_SCENARIOS.filter((s) => IDS.includes(s.id)),
        seed: 7,
      }),
    );
    expect(report.outage).toBeUndefined();
  }, 60_000);
});

describe('TargetTraffic', () => {
  it('takes a failure followed by an answer for no outage, and the first of a final row of failures for one', () => {
    const t = TargetTraffic.afterDiscovery();
    t.unanswered(t.sent('GET', 'http://idp/a?secret=1', 'one'), 'socket hang up');
    t.answered();
    expect(t.outage()).toBeUndefined();
    t.sent('GET', 'http://idp/b');
    t.answered();
    t.unanswered(t.sent('POST', 'http://idp/token?x=1', 'token request'), 'connection refused (ECONNREFUSED)');
    t.unanswered(t.sent('GET', 'http://idp/c'), 'connection refused (ECONNREFUSED)');
    expect(t.outage()).toMatchObject({
      afterRequests: 2,
      lastSent: 'POST http://idp/token (token request)',
      cause: 'connection refused (ECONNREFUSED)',
    });
  });

  it('takes a target that never answered for no outage (that is an unreachable target)', () => {
    const t = new TargetTraffic();
    t.unanswered(t.sent('GET', 'http://idp/a'), 'connection refused (ECONNREFUSED)');
    expect(t.outage()).toBeUndefined();
  });
});

describe('RunStop (issue 40 cause 2)', () => {
  it('stops the run after 5 requests in a row without an answer; an answer in between starts the count again', () => {
    const t = TargetTraffic.afterDiscovery();
    for (let i = 0; i < MAX_UNANSWERED_IN_A_ROW - 1; i++) t.unanswered(t.sent('GET', 'http://idp/a'), 'no response');
    t.answered();
    for (let i = 0; i < MAX_UNANSWERED_IN_A_ROW - 1; i++) t.unanswered(t.sent('GET', 'http://idp/b'), 'no response');
    expect(t.stop.error).toBeUndefined();
    expect(t.stop.signal.aborted).toBe(false);
    t.unanswered(t.sent('POST', 'http://idp/token?code=x', 'token request'), 'no response within 3000 ms');
    expect(t.stop.signal.aborted).toBe(true);
    expect(t.stop.error).toMatchObject({
      code: 'ERR_TARGET_UNREACHABLE',
      message:
        'target unreachable: 5 requests in a row got no answer (the last: POST http://idp/token (token request), ' +
        'no response within 3000 ms)',
    });
    expect(t.stop.signal.reason).toBe(t.stop.error);
  });

  it('stops the run when its time limit is reached', async () => {
    const stop = new RunStop();
    stop.limit(20);
    await new Promise((resolve) => stop.signal.addEventListener('abort', resolve));
    expect(stop.error).toMatchObject({
      code: 'ERR_RUN_STOPPED',
      message: "the run's time limit was reached (20 ms, --max-run-ms)",
    });
  });

  it('a run against a target that stops answering mid-run ends with the rest as errors, not waited for', async () => {
    stub = await startStubIdp({ dieAfter: 4 });
    const report = await runSuite(
      planRun({
        config: validateConfig(stub.config, {}),
        scenarios: BUILT_IN_SCENARIOS.filter((s) => !s.requires?.browser && !s.exclusive),
        seed: 7,
        concurrency: 2,
      }),
    );
    expect(report.verdict).toMatchObject({ judged: false, stopped: 'unreachable' });
    const notStarted = report.results.filter((r) => r.message?.startsWith('target unreachable: 5 requests in a row'));
    expect(notStarted.length).toBeGreaterThan(report.results.length / 2);
    for (const r of notStarted) expect(r).toMatchObject({ status: 'error', durationMs: 0, evidence: [] });
    expect(() => reportSchema.parse(report)).not.toThrow();
  }, 120_000);
});
