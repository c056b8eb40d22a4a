/** Item 1: redaction never touches what the harness writes itself (statuses, ids, levels, counts, probes). */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../harness/redact/redact.ts';
import type { HttpEvidence, ScenarioResult } from '../../harness/model/results.ts';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { reportOf, resultOf } from './run-cli.ts';

describe("item 1: a target whose tokens are the harness's own words", () => {
  it(
    'cannot turn a failure into a pass: statuses, counts, JUnit, Markdown and the exit code agree',
    async () => {
      const { run, idp } = await attack('harness-words', { only: ['client-credentials.*'] });
      expectContained(run, idp, 1);
      const failed = resultOf(run, 'client-credentials.no-refresh-token');
      expect(failed.status).toBe('failed');
      expect(failed.severity).toBe('medium');
      expect(failed.level).toBe('MUST');
      expect(resultOf(run, 'client-credentials.issues-token').status).toBe('passed');
      expect(reportOf(run).summary).toMatchObject({ failed: 1, passed: 1 });
      expect(run.stdout).toMatch(/FAIL\s+client-credentials\.no-refresh-token/);
      expect(run.stdout).toMatch(/2 scenarios: 1 passed, 1 failed/);
      expect(run.files['junit.xml']).toMatch(/<failure message="[^"]*" type="[^"]*MUST[^"]*">/);
      expect(run.files['junit.xml']).toContain('failures="1"');
      // The counts row: security, interop and unclassified failures (one in all), then warnings,
      // errors, expected failures, passed (1) and skipped.
      const counts = /^\| (\d+) \| (\d+) \| (\d+) \| 0 \| 0 \| 0 \| 1 \| 0 \|$/m.exec(run.files['report.md'] ?? '');
      expect(counts?.slice(1).reduce((n, c) => n + Number(c), 0)).toBe(1);
      expect(run.files['report.md']).toContain('| FAIL | client\\-credentials\\.no\\-refresh\\-token |');
      expect(failed.message).toBe(
        'The client_credentials grant returned a refresh_token; SPEC › Token endpoint (rule 1) requires that ' +
          'it does not.',
      );
    },
    RUN_TIMEOUT_MS,
  );

  it('keeps probes the harness generated readable and masks only secrets and what the target issued', () => {
    const redactor = new Redactor([{ value: 'config-secret-123456', kind: 'client_secret' }]);
    const forged = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.';
    const nearMiss = 'https://client.example.test/cb/../evil';
    const exchange: HttpEvidence = {
      kind: 'http',
      durationMs: 1,
      request: {
        method: 'POST',
        url: 'http://idp.test/introspect',
        headers: {},
        body: `token=${encodeURIComponent(forged)}&redirect_uri=${encodeURIComponent(nearMiss)}`,
      },
      // The target echoes the probe back as a "token": an echo of what the harness sent is not the target's secret.
      response: {
        status: 200,
        headers: {},
        body: JSON.stringify({ active: false, token: forged, access_token: 'issued-by-target-0123456789' }),
      },
    };
    redactor.observe(exchange);
    const result: ScenarioResult = {
      id: 'jwt.alg-none-rejected',
      title: 't',
      area: 'jwt',
      status: 'failed',
      severity: 'critical',
      level: 'MUST',
      requirements: [],
      catches: [],
      durationMs: 1,
      evidence: [
        exchange,
        { kind: 'counterexample', seed: 1, runs: 1, value: JSON.stringify(nearMiss), replay: '--seed 1' },
      ],
      message:
        `the forged token ${forged} for ${nearMiss} was accepted; issued-by-target-0123456789 was returned; ` +
        `secret config-secret-123456`,
    };
    const out = redactor.result(result);
    expect(out.message).toContain(forged);
    expect(out.message).toContain(nearMiss);
    expect(out.message).not.toContain('issued-by-target-0123456789');
    expect(out.message).not.toContain('config-secret-123456');
    expect(out.evidence[1]).toMatchObject({ value: JSON.stringify(nearMiss) });
    expect(out).toMatchObject({ id: result.id, status: 'failed', severity: 'critical', level: 'MUST', area: 'jwt' });
  });
});
