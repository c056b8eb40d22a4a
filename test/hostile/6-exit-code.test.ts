/** Item 6: an exit code you can trust, and odd input that is the target's fault, not "a harness bug". */
import { describe, expect, it } from 'vitest';
import { PreconditionError } from '../../harness/model/failures.ts';
import type { HttpResponse } from '../../harness/http/client.ts';
import { tokenSetOf } from '../../harness/flows/token-set.ts';
import { assessVerdict } from '../../harness/run/verdict.ts';
import type { ScenarioResult } from '../../harness/model/results.ts';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { reportOf, resultOf } from './run-cli.ts';

describe('item 6: runs that could not be judged, and answers of the wrong shape', () => {
  it(
    'exits 1 and says the run was not a verdict when nobody could log in',
    async () => {
      // code.happy-path would fail (an authorization endpoint that answers 500 fails RFC 6749 §4.1):
      // the scenarios that need a login only as set-up error, and one scenario without a login passes.
      const { run, idp } = await attack('login-broken', {
        only: [
          'code.single-use',
          'code.state-round-trip',
          'code.redirect-uri-checked',
          'client-credentials.issues-token',
        ],
      });
      expectContained(run, idp, 1);
      const report = reportOf(run);
      expect(report.summary.failed).toBe(0);
      expect(report.summary.errors).toBeGreaterThan(0);
      expect(run.stdout).toMatch(/not a verdict: every scenario that needs a login errored/);
      expect(report.verdict).toMatchObject({ judged: false });
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "a JWKS of null entries is the target's failure, not a harness bug",
    async () => {
      const { run, idp } = await attack('null-jwks', { only: ['jwks.public-keys-only', 'id-token.signature'] });
      expectContained(run, idp, 1);
      for (const id of ['jwks.public-keys-only', 'id-token.signature']) {
        const r = resultOf(run, id);
        expect(r.status, r.message).toBe('failed');
        expect(r.message).toMatch(/RFC 7517/);
        expect(r.message).not.toMatch(/bug/);
      }
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'a token response that is not a JSON object is a failure naming RFC 6749 §5.1',
    async () => {
      const { run, idp } = await attack('non-object-token', { only: ['client-credentials.*'] });
      expectContained(run, idp, 1);
      // issues-token fails at its MUST (RFC 6749 §4.4); no-refresh-token cites RFC 6749 §4.4.3's SHOULD for this
      // set-up, a warning.
      for (const [id, status] of [
        ['client-credentials.issues-token', 'failed'],
        ['client-credentials.no-refresh-token', 'warning'],
      ]) {
        const r = resultOf(run, id!);
        expect(r.status).toBe(status);
        expect(r.message).toMatch(/JSON object/);
        expect(r.message).not.toMatch(/bug/);
      }
    },
    RUN_TIMEOUT_MS,
  );

  it('a token response field of the wrong type is named, not a TypeError later', () => {
    const res = {
      status: 200,
      body: { access_token: 'a-token-value', token_type: 5, scope: ['openid'] },
    } as unknown as HttpResponse;
    expect(() => tokenSetOf(res, 'set-up')).toThrow(PreconditionError);
    expect(() => tokenSetOf(res, 'set-up')).toThrow(
      /token_type is number, scope is an array, not a string \(RFC 6749 §5\.1\)/,
    );
  });

  it('the verdict rule: errors outnumbering judged results, or every login scenario errored', () => {
    const r = (id: string, status: ScenarioResult['status']) => ({ id, status }) as ScenarioResult;
    expect(assessVerdict([r('a', 'passed'), r('b', 'error')], new Set(['b']))).toMatchObject({ judged: false });
    expect(assessVerdict([r('a', 'passed'), r('b', 'error'), r('c', 'passed')], new Set(['b', 'c']))).toEqual({
      judged: true,
    });
    expect(assessVerdict([r('a', 'passed'), r('b', 'error'), r('c', 'error')], new Set())).toMatchObject({
      judged: false,
      reason: expect.stringMatching(/2 of 3/),
    });
    expect(assessVerdict([r('a', 'failed'), r('b', 'skipped')], new Set(['b']))).toEqual({ judged: true });
  });
});
