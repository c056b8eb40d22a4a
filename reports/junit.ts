/**
 * junit.xml: one testcase per scenario (classname = area), a testsuite per area, each with
 * <properties> (seed, profile, planted flaws, target, the baseline comparison). Failures are
 * <failure> (type: security, interop or failed) whose text leads with the deciding response's
 * status, Location and redacted body, then the replay options and the deciding request as curl;
 * errors <error>, skipped and expected failures <skipped>; warnings pass with the warning in
 * <system-out> (JUnit has no warning state). Screenshots are named in <system-out> as
 * `[[ATTACHMENT|path]]` (the form the Jenkins attachments plugin and GitLab read), the path
 * relative to the report folder junit.xml is in.
 */
import type { HttpEvidence, Report, ScenarioResult } from '../harness/model/results.ts';
import { baselineLines, kindLabel, orderResults, requirementsText, resultDetail, visibleControls } from './format.ts';
import { clipText, curlCommand, decidingExchange, messageText, replayCommand, reproducible } from './reproduce.ts';

/** The longest response body shown in a failure's text. */
const MAX_BODY = 4000;

export function xmlEscape(text: string): string {
  return visibleControls(text)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function details(report: Report, r: ScenarioResult): string {
  const kind = kindLabel(r);
  const lines = [
    resultDetail(r),
    `${kind ? `${kind} · ` : ''}severity ${r.severity}${r.level ? ` · ${r.level}` : ''}`,
    `requirements: ${requirementsText(r) || '(none in this profile)'}`,
  ];
  for (const q of r.requirements) if (q.url) lines.push(`  ${q.label}: ${q.url}`);
  for (const f of r.findings ?? []) lines.push(`${f.status}: ${f.message}`);
  const deciding = decidingExchange(r)?.evidence;
  if (deciding && reproducible(r)) {
    const res = deciding.response;
    lines.push('', `deciding exchange: ${deciding.request.method} ${deciding.request.url}`);
    if (res) {
      lines.push(`response status: ${res.status}`);
      if (res.headers.location) lines.push(`Location: ${res.headers.location}`);
      lines.push(messageText('response (redacted):', res, MAX_BODY));
    } else lines.push(`no response: ${deciding.error ?? 'unknown'}`);
  }
  if (reproducible(r)) {
    lines.push('', `replay: ${replayCommand(report, r)}`);
    if (deciding) {
      const curl = curlCommand(deciding);
      lines.push(
        `the deciding request${curl.env.length ? ` (set ${curl.env.join(', ')} first)` : ''}:`,
        clipText(curl.command, MAX_BODY),
      );
    }
  }
  const http = r.evidence.filter((e): e is HttpEvidence => e.kind === 'http');
  if (http.length) lines.push('', 'http:');
  for (const e of http)
    lines.push(
      `  ${e === deciding ? '* ' : ''}${e.request.method} ${e.request.url} ` +
        `→ ${e.response ? e.response.status : (e.error ?? 'no response')}`,
    );
  return lines.join('\n');
}

/** Screenshots as attachments, in <system-out>. */
function attachments(r: ScenarioResult): string[] {
  return r.evidence.filter((e) => e.kind === 'screenshot').map((e) => `[[ATTACHMENT|${e.path}]]`);
}

function systemOut(lines: string[]): string {
  return lines.length ? `\n      <system-out>${xmlEscape(lines.join('\n'))}</system-out>` : '';
}

function testcase(report: Report, r: ScenarioResult): string {
  const open =
    `    <testcase classname="${xmlEscape(r.area)}" name="${xmlEscape(`${r.id}: ${r.title}`)}" ` +
    `time="${seconds(r.durationMs)}"`;
  const message = xmlEscape(resultDetail(r));
  const files = attachments(r);
  if (r.expected)
    return (
      `${open}>\n      <skipped ` +
      `message="${xmlEscape(`expected failure: ${r.message ?? ''}`)}"/>${systemOut(files)}\n    </testcase>`
    );
  switch (r.status) {
    case 'failed':
      return (
        `${open}>\n      <failure message="${message}" type="${kindLabel(r) ?? 'failed'} ` +
        `(${r.level ?? 'MUST'})">${xmlEscape(details(report, r))}</failure>${systemOut(files)}\n    </testcase>`
      );
    case 'error':
      return (
        `${open}>\n      <error message="${message}" ` +
        `type="${r.errorCode ?? 'error'}">${xmlEscape(details(report, r))}</error>${systemOut(files)}\n    </testcase>`
      );
    case 'skipped':
      return `${open}>\n      <skipped message="${message}"/>\n    </testcase>`;
    case 'warning':
      return (
        `${open}>${systemOut([`WARNING (${r.level ?? 'SHOULD'}): ${details(report, r)}`, ...files])}\n    ` +
        `</testcase>`
      );
    default:
      return files.length ? `${open}>${systemOut(files)}\n    </testcase>` : `${open}/>`;
  }
}

/** The run's properties, repeated in every testsuite (JUnit has no properties on <testsuites>). */
function properties(report: Report): string {
  const props: [string, string][] = [
    ['tool', `${report.tool.name} ${report.tool.version}`],
    ['target', report.target.issuer],
    ['profile', report.profile],
    ...(report.target.kind
      ? [['targetKind', `${report.target.kind.protocol}: ${report.target.kind.why}`] satisfies [string, string]]
      : []),
    ['seed', String(report.seed)],
    ['runs', String(report.runs)],
    ['plantedFlaws', report.plantedFlaws?.length ? report.plantedFlaws.join(',') : 'none'],
  ];
  const b = report.baseline;
  if (b) {
    props.push(['baseline', baselineLines(report)[0]!]);
    props.push(['baseline.newFailures', b.newFailures.map((c) => c.id).join(',')]);
    props.push(['baseline.fixed', b.fixed.map((c) => c.id).join(',')]);
    props.push(['baseline.changed', b.changed.map((c) => `${c.id}:${c.from}->${c.to}`).join(',')]);
  }
  return (
    `    <properties>\n` +
    `${props.map(([name, value]) => `      <property ${attrs({ name, value })}/>`).join('\n')}\n    </properties>`
  );
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

const attrs = (o: Record<string, string | number>) =>
  Object.entries(o)
    .map(([k, v]) => `${k}="${xmlEscape(String(v))}"`)
    .join(' ');

export function renderJunit(report: Report): string {
  const ordered = orderResults(report.results);
  const areas = [...new Set(ordered.map((r) => r.area))];
  const suites = areas.map((area) => {
    const results = ordered.filter((r) => r.area === area);
    return (
      `  <testsuite ` +
      `${attrs({ name: area, ...counts(results), timestamp: report.startedAt.replace(/\.\d+Z$/, '') })}>\n` +
      `${properties(report)}\n${results.map((r) => testcase(report, r)).join('\n')}\n  </testsuite>`
    );
  });
  const { time: _t, ...total } = counts(report.results);
  return (
    `<?xml version="1.0" ` +
    `encoding="UTF-8"?>\n<testsuites ` +
    `${attrs({ name: `${report.tool.name} ${report.target.issuer}`, ...total, time: seconds(report.durationMs) })}>` +
    `\n${suites.join('\n')}\n</testsuites>\n`
  );
}
