/** Small shared helpers for reporters (they import only the result types). */
import type { LoginWalk, Report, ScenarioResult, Status } from '../harness/model/results.ts';
import { CONTROLS_BUT_LAYOUT } from './controls.ts';

export const STATUS_LABEL: Record<Status, string> = {
  passed: 'PASS',
  failed: 'FAIL',
  warning: 'WARN',
  skipped: 'SKIP',
  error: 'ERROR',
};

/** The label a result is shown with: expected failures read XFAIL. */
export function resultLabel(r: ScenarioResult): string {
  return r.expected ? 'XFAIL' : STATUS_LABEL[r.status];
}

/** What a reader needs in one line: the failure sentence, the skip reason, or nothing. */
export function resultDetail(r: ScenarioResult): string {
  const base = r.status === 'skipped' ? (r.skipReason ?? '') : (r.message ?? '');
  if (r.expected) return `${base} (listed in expectedFailures)`;
  if (r.unexpectedPass) return 'passed although listed in expectedFailures: remove it from the list';
  return base;
}

/** "target: an OAuth 2.0 authorization server (why)": what the run took the target for; undefined on older reports. */
export function kindLine(report: Report): string | undefined {
  const k = report.target.kind;
  if (!k) return undefined;
  const what =
    k.protocol === 'oauth2' ? 'an OAuth 2.0 authorization server, not an OpenID provider' : 'an OpenID provider';
  return `target: ${what} (${k.why})`;
}

export function summaryLine(report: Report): string {
  const s = report.summary;
  const split =
    s.failed && (s.security !== undefined || s.interop !== undefined)
      ? ` (${s.security ?? 0} security, ${s.interop ?? 0} interop)`
      : '';
  const parts = [
    `${s.passed} passed`,
    `${s.failed} failed${split}`,
    `${s.warnings} warning${s.warnings === 1 ? '' : 's'}`,
    `${s.skipped} skipped`,
    `${s.errors} error${s.errors === 1 ? '' : 's'}`,
  ];
  const expected = s.expectedFailures ? ` (${s.expectedFailures} expected)` : '';
  return (
    `${s.total} scenario${s.total === 1 ? '' : 's'}: ${parts.join(', ')}${expected} ` +
    `in ${(report.durationMs / 1000).toFixed(1)} s — profile ${report.profile}, seed ${report.seed}`
  );
}

/** The reason a walk went to the browser, as the summary groups it (a remembered page under its first reason). */
function browserReason(w: LoginWalk): string {
  if (w.driver === 'browser') return 'the browser driver (login.driver "browser", or a browser scenario)';
  return (w.switched?.reason ?? 'unknown').replace(/^as an earlier walk on this page: /, '');
}

/**
 * "browser walks: N of M (reasons…)": how many of the run's login walks used Chromium, and why (the auto driver's
 * switches, by reason; the browser driver's walks). Undefined when the run made no walk.
 */
export function browserWalksLine(report: Report): string | undefined {
  const walks = report.results.flatMap((r) => r.walks ?? []);
  if (!walks.length) return undefined;
  const inBrowser = walks.filter((w) => w.used.includes('browser'));
  const reasons = new Map<string, number>();
  for (const w of inBrowser) reasons.set(browserReason(w), (reasons.get(browserReason(w)) ?? 0) + 1);
  const listed = [...reasons].sort((a, b) => b[1] - a[1]).map(([why, n]) => `${n}: ${why}`);
  return `browser walks: ${inBrowser.length} of ${walks.length}${listed.length ? ` (${listed.join('; ')})` : ''}`;
}

export function requirementsText(r: ScenarioResult): string {
  return r.requirements
    .filter((q) => q.applies)
    .map((q) => `${q.level} ${q.label}`)
    .join('; ');
}

/**
 * The group a result is shown in, in reading order: security failures (the attack or bad request
 * was accepted), interop failures (refused, but wrongly), failures the run did not classify (a
 * failed result without failureKind, e.g. from an older runner or a custom scenario: it may be
 * either, so it comes right after the two known kinds), warnings, errors, expected failures
 * (listed in expectedFailures), passed, skipped.
 */
export const GROUPS = [
  'security',
  'interop',
  'unclassified',
  'warning',
  'error',
  'expected',
  'passed',
  'skipped',
] as const;
export type Group = (typeof GROUPS)[number];

export const GROUP_LABEL: Record<Group, string> = {
  security: 'security failures',
  interop: 'interop failures',
  unclassified: 'unclassified failures',
  warning: 'warnings',
  error: 'errors',
  expected: 'expected failures',
  passed: 'passed',
  skipped: 'skipped',
};

export function groupOf(r: ScenarioResult): Group {
  if (r.expected) return 'expected';
  if (r.status === 'failed')
    return r.failureKind === 'accepted' ? 'security' : r.failureKind === 'refused-wrongly' ? 'interop' : 'unclassified';
  return r.status === 'warning' ? 'warning' : r.status === 'error' ? 'error' : r.status;
}

/** "security" / "interop" for a failed or warning result whose kind is known. */
export function kindLabel(r: ScenarioResult): 'security' | 'interop' | undefined {
  if (r.status !== 'failed' && r.status !== 'warning') return undefined;
  return r.failureKind === 'accepted' ? 'security' : r.failureKind === 'refused-wrongly' ? 'interop' : undefined;
}

const SEVERITY_RANK: Record<ScenarioResult['severity'], number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/**
 * Results in reading order: by group (GROUPS), within a group security before interop (warnings),
 * an unexpected pass first among the passed, then by severity; otherwise the run's order.
 */
export function orderResults(results: readonly ScenarioResult[]): ScenarioResult[] {
  const key = (r: ScenarioResult): number[] => [
    GROUPS.indexOf(groupOf(r)),
    r.failureKind === 'accepted' ? 0 : r.failureKind === 'refused-wrongly' ? 1 : 2,
    r.unexpectedPass ? 0 : 1,
    SEVERITY_RANK[r.severity],
  ];
  return results
    .map((r, i) => ({ r, i, k: key(r) }))
    .sort((a, b) => a.k.reduce((d, v, j) => d || v - b.k[j]!, 0) || a.i - b.i)
    .map((x) => x.r);
}

/** How many results fall in each group. */
export function groupCounts(results: readonly ScenarioResult[]): Record<Group, number> {
  const counts: Record<Group, number> = {
    security: 0,
    interop: 0,
    unclassified: 0,
    warning: 0,
    error: 0,
    expected: 0,
    passed: 0,
    skipped: 0,
  };
  for (const r of results) counts[groupOf(r)]++;
  return counts;
}

/** The sentence every format uses when planted flaws were on (undefined when none were). */
export function plantedFlawsLine(report: Report): string | undefined {
  const flaws = report.plantedFlaws ?? [];
  if (!flaws.length) return undefined;
  return (
    `Planted flaws were on: ${flaws.join(', ')}. The target was the reference server with these deliberate ` +
    `bugs switched on, so the failures they cause are expected.`
  );
}

/** The baseline comparison in one line per kind of change (empty without --baseline). */
export function baselineLines(report: Report): string[] {
  const b = report.baseline;
  if (!b) return [];
  const list = (cs: { id: string; from: string; to: string }[], arrows: boolean) =>
    cs.map((c) => (arrows ? `${c.id} (${c.from} → ${c.to})` : c.id)).join(', ');
  const when = b.startedAt ? ` (run of ${b.startedAt}${b.seed === undefined ? '' : `, seed ${b.seed}`})` : '';
  const lines = [
    `compared with ${b.source}${when}: ${b.newFailures.length} new ` +
      `failure${b.newFailures.length === 1 ? '' : 's'}, ${b.fixed.length} fixed, ${b.changed.length} other ` +
      `verdict${b.changed.length === 1 ? '' : 's'} changed`,
  ];
  if (b.newFailures.length) lines.push(`new failures: ${list(b.newFailures, true)}`);
  if (b.fixed.length) lines.push(`fixed: ${list(b.fixed, true)}`);
  if (b.changed.length) lines.push(`changed: ${list(b.changed, true)}`);
  return lines;
}

/** The security/interop split of the failures, e.g. "3 security, 1 interop, 2 unclassified". */
export function splitLine(results: readonly ScenarioResult[]): string {
  const c = groupCounts(results);
  const parts = [`${c.security} security`, `${c.interop} interop`];
  if (c.unclassified) parts.push(`${c.unclassified} unclassified`);
  return `failures: ${parts.join(', ')}`;
}

/**
 * Target text with its invisible controls made visible: C0 and C1 control characters (but tab,
 * line feed and carriage return), DEL, and the bidirectional controls that can make text read
 * in another order than it is (U+061C, U+200E/F, U+202A–E, U+2066–9) become `⟨U+XXXX⟩`. Every
 * reporter runs target-supplied text through it before its own escaping (HTML, XML, Markdown).
 */
export function visibleControls(text: string): string {
  return text.replace(CONTROLS_BUT_LAYOUT, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
