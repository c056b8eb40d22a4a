/** The options `run` and `merge-reports` share, checked: --fail-on, --format, integers; and the exit code. */
import { patternList } from '../harness/run/glob.ts';
import type { Report } from '../harness/model/results.ts';
import { REPORT_FORMATS, type ReportFormat, isReportFormat } from '../reports/index.ts';
import { UsageError } from './command.ts';

export type FailOn = 'failed' | 'warning' | 'error' | 'security';
export const FAIL_ON: readonly FailOn[] = ['failed', 'warning', 'error', 'security'];

/** --fail-on's value, checked: the same for `run` and `merge-reports`. */
export function failOnOption(value: string): FailOn {
  const failOn = FAIL_ON.find((f) => f === value);
  if (!failOn)
    throw new UsageError(`--fail-on must be ${FAIL_ON.slice(0, -1).join(', ')} or ${FAIL_ON.at(-1)}, not "${value}"`);
  return failOn;
}

/**
 * 1 when a result that is not an expected failure reaches the --fail-on threshold, and 1 when the
 * run was not a verdict (report.verdict): a run that could not judge the target never exits 0.
 * `security` counts only failures whose kind is `accepted` (the attack or bad request succeeded);
 * a failure without a kind counts too, so nothing slips through unclassified.
 */
export function exitCodeFor(report: Report, failOn: FailOn = 'failed'): 0 | 1 | 3 {
  // The run stopped before judging every scenario (the target unreachable, --max-run-ms reached): nothing judged.
  if (report.verdict?.stopped) return 3;
  if (report.verdict && !report.verdict.judged) return 1;
  const counted = report.results.filter((r) => !r.expected);
  if (failOn === 'security')
    return counted.some((r) => r.status === 'failed' && r.failureKind !== 'refused-wrongly') ? 1 : 0;
  const bad = counted.some(
    (r) =>
      r.status === 'failed' ||
      (failOn !== 'failed' && r.status === 'warning') ||
      (failOn === 'error' && r.status === 'error'),
  );
  return bad ? 1 : 0;
}

/** An integer option (--seed, --runs, --concurrency, --timeout), checked; undefined when not given. */
export function integer(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > 0x7fffffff)
    throw new UsageError(`--${name} must be an integer ≥ ${min}, not "${value}"`);
  return n;
}

/** --format's list, checked; undefined when not given (writeReports then writes its DEFAULT_FORMATS). */
export function formats(value: string | undefined): ReportFormat[] | undefined {
  if (value === undefined) return undefined;
  const list = patternList([value]);
  for (const f of list)
    if (!isReportFormat(f))
      throw new UsageError(`--format: unknown format "${f}"; choose from ${REPORT_FORMATS.join(', ')}`);
  return list.filter(isReportFormat);
}

/** --code-lifetime S (run's embedded reference, serve): the reference's `lifetimes.authorizationCode`, checked. */
export function codeLifetimeOption(value: string | undefined): { lifetimes?: { authorizationCode: number } } {
  const seconds = integer('code-lifetime', value, 1);
  return seconds === undefined ? {} : { lifetimes: { authorizationCode: seconds } };
}
