/** report.md: short, for a CI step summary. */
import type { Report, ScenarioResult } from '../harness/results.ts';
import { markdownText } from './escape.ts';
import { resultDetail, resultLabel, summaryLine } from './format.ts';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function requirementLinks(r: ScenarioResult): string {
  return r.requirements.filter((q) => q.applies).map((q) => (q.url ? `[${q.label}](${q.url})` : q.label)).join(', ');
}

export function renderMarkdown(report: Report): string {
  const s = report.summary;
  const out = [
    `## OAuth/OIDC conformance: ${markdownText(report.target.issuer)}`,
    '',
    '| passed | failed | warnings | skipped | errors |',
    '| ---: | ---: | ---: | ---: | ---: |',
    `| ${s.passed} | ${s.failed} | ${s.warnings} | ${s.skipped} | ${s.errors} |`,
    '',
    summaryLine(report),
  ];
  const notable = report.results.filter((r) => r.status === 'failed' || r.status === 'warning' || r.status === 'error' || r.unexpectedPass);
  if (notable.length) {
    out.push('', '| | scenario | what happened | requirement |', '| --- | --- | --- | --- |');
    for (const r of notable) out.push(`| ${resultLabel(r)} | \`${r.id}\` | ${markdownText(resultDetail(r))} | ${cell(requirementLinks(r))} |`);
  } else {
    out.push('', 'No failures, warnings or errors.');
  }
  const skipped = report.results.filter((r) => r.status === 'skipped');
  if (skipped.length) {
    out.push('', `<details><summary>${skipped.length} skipped</summary>`, '');
    for (const r of skipped) out.push(`- \`${r.id}\`: ${markdownText(r.skipReason ?? '')}`);
    out.push('', '</details>');
  }
  return `${out.join('\n')}\n`;
}
