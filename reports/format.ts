/** Small shared helpers for reporters (they import only the result types). */
import type { Report, ScenarioResult, Status } from '../harness/results.ts';

export const STATUS_LABEL: Record<Status, string> = {
  passed: 'PASS', failed: 'FAIL', warning: 'WARN', skipped: 'SKIP', error: 'ERROR',
};

/** The label a result is shown with: expected failures read XFAIL. */
export function resultLabel(r: ScenarioResult): string {
  return r.expected ? 'XFAIL' : STATUS_LABEL[r.status];
}

/** What a reader needs in one line: the failure sentence, the skip reason, or nothing. */
export function resultDetail(r: ScenarioResult): string {
  const base = r.status === 'skipped' ? r.skipReason ?? '' : r.message ?? '';
  if (r.expected) return `${base} (listed in expectedFailures)`;
  if (r.unexpectedPass) return 'passed although listed in expectedFailures: remove it from the list';
  return base;
}

export function summaryLine(report: Report): string {
  const s = report.summary;
  const split = s.failed && (s.security !== undefined || s.interop !== undefined) ? ` (${s.security ?? 0} security, ${s.interop ?? 0} interop)` : '';
  const parts = [`${s.passed} passed`, `${s.failed} failed${split}`, `${s.warnings} warning${s.warnings === 1 ? '' : 's'}`, `${s.skipped} skipped`, `${s.errors} error${s.errors === 1 ? '' : 's'}`];
  const expected = s.expectedFailures ? ` (${s.expectedFailures} expected)` : '';
  return `${s.total} scenarios: ${parts.join(', ')}${expected} in ${(report.durationMs / 1000).toFixed(1)} s — profile ${report.profile}, seed ${report.seed}`;
}

export function requirementsText(r: ScenarioResult): string {
  return r.requirements.filter((q) => q.applies).map((q) => `${q.level} ${q.label}`).join('; ');
}
