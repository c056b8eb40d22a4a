/**
 * junit.xml: one testcase per scenario (classname = area), a testsuite per area. Failures are
 * <failure>, errors <error>, skipped and expected failures <skipped>; warnings pass with the
 * warning in <system-out> (JUnit has no warning state).
 */
import type { HttpEvidence, Report, ScenarioResult } from '../harness/results.ts';
import { requirementsText, resultDetail } from './format.ts';

export function xmlEscape(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function details(r: ScenarioResult): string {
  const lines = [resultDetail(r), `requirements: ${requirementsText(r) || '(none in this profile)'}`];
  for (const q of r.requirements) if (q.url) lines.push(`  ${q.label}: ${q.url}`);
  for (const f of r.findings ?? []) lines.push(`${f.status}: ${f.message}`);
  const http = r.evidence.filter((e): e is HttpEvidence => e.kind === 'http');
  if (http.length) lines.push('http:');
  for (const e of http) lines.push(`  ${e.request.method} ${e.request.url} → ${e.response ? e.response.status : e.error ?? 'no response'}`);
  return lines.join('\n');
}

function testcase(r: ScenarioResult): string {
  const open = `    <testcase classname="${xmlEscape(r.area)}" name="${xmlEscape(`${r.id}: ${r.title}`)}" time="${seconds(r.durationMs)}"`;
  const message = xmlEscape(resultDetail(r));
  if (r.expected) return `${open}>\n      <skipped message="${xmlEscape(`expected failure: ${r.message ?? ''}`)}"/>\n    </testcase>`;
  switch (r.status) {
    case 'failed':
      return `${open}>\n      <failure message="${message}" type="${r.level ?? 'MUST'}">${xmlEscape(details(r))}</failure>\n    </testcase>`;
    case 'error':
      return `${open}>\n      <error message="${message}" type="error">${xmlEscape(details(r))}</error>\n    </testcase>`;
    case 'skipped':
      return `${open}>\n      <skipped message="${message}"/>\n    </testcase>`;
    case 'warning':
      return `${open}>\n      <system-out>${xmlEscape(`WARNING (${r.level ?? 'SHOULD'}): ${details(r)}`)}</system-out>\n    </testcase>`;
    default:
      return `${open}/>`;
  }
}

function counts(results: ScenarioResult[]) {
  return {
    tests: results.length,
    failures: results.filter((r) => r.status === 'failed' && !r.expected).length,
    errors: results.filter((r) => r.status === 'error').length,
    skipped: results.filter((r) => r.status === 'skipped' || r.expected).length,
    time: seconds(results.reduce((t, r) => t + r.durationMs, 0)),
  };
}

const attrs = (o: Record<string, string | number>) => Object.entries(o).map(([k, v]) => `${k}="${xmlEscape(String(v))}"`).join(' ');

export function renderJunit(report: Report): string {
  const areas = [...new Set(report.results.map((r) => r.area))];
  const suites = areas.map((area) => {
    const results = report.results.filter((r) => r.area === area);
    return `  <testsuite ${attrs({ name: area, ...counts(results), timestamp: report.startedAt.replace(/\.\d+Z$/, '') })}>\n${results.map(testcase).join('\n')}\n  </testsuite>`;
  });
  const { time: _t, ...total } = counts(report.results);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ${attrs({ name: `${report.tool.name} ${report.target.issuer}`, ...total, time: seconds(report.durationMs) })}>\n${suites.join('\n')}\n</testsuites>\n`;
}
