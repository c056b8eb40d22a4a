/**
 * Issue 29 item 3: a run that stops before judging (discovery unusable, the target never answering) still writes every
 * requested report, with the stop as its one result (run.stopped) and no verdict.
 */
import { describe, expect, it } from 'vitest';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { ALL_FORMATS, ALL_REPORTS, reportOf } from './run-cli.ts';

describe('issue 29 item 3: every report, when the run stops before judging', () => {
  it.each([
    ['deep-discovery', 1, /nests JSON deeper than 64 levels/],
    ['silent-discovery', 3, /the target is unreachable: .*no response within 3000 ms/],
  ] as const)(
    '%s: exit %i, the five reports with the stop as the one result',
    async (mode, exitCode, cause) => {
      const { run, idp } = await attack(mode, { only: ['code.happy-path', 'client-credentials.*'], args: ALL_FORMATS });
      expectContained(run, idp, exitCode);
      expect(Object.keys(run.files).sort()).toEqual(ALL_REPORTS);
      const report = reportOf(run);
      expect(report.results).toEqual([expect.objectContaining({ id: 'run.stopped', status: 'error' })]);
      expect(report.results[0]!.message).toMatch(cause);
      expect(report.verdict).toMatchObject({ judged: false });
      expect(run.files['junit.xml']).toMatch(/<testcase[^>]*name="run\.stopped: [^"]*"[^>]*>\s*<error message="/);
      const sarif = JSON.parse(run.files['report.sarif']!);
      expect(sarif.runs[0].invocations[0].toolExecutionNotifications).toContainEqual(
        expect.objectContaining({ level: 'error', message: { text: expect.stringMatching(/^run\.stopped: /) } }),
      );
      for (const file of ['report.md', 'report.html'])
        expect(run.files[file]).toContain('the run stopped before judging the target');
      expect(run.stderr).toMatch(cause);
      // Discovery was asked for and nothing after it: no secret was sent anywhere.
      expect(idp.requests.map((q) => new URL(q.url).pathname)).toEqual(['/.well-known/openid-configuration']);
    },
    RUN_TIMEOUT_MS,
  );
});
