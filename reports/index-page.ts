/**
 * The index of a run over several targets (`run --target a.json --target b.json`): index.html
 * (one self-contained page, every value escaped: issuers come from the configs and are shown
 * as text) and index.json, each linking the per-target report folders.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Summary } from '../harness/model/results.ts';
import { htmlEscape as h } from './html.ts';

export interface IndexEntry {
  /** The target's report folder, relative to the index. */
  name: string;
  issuer: string;
  /** The exit code this target alone would have given (0, 1, 2 reports not written, 3 unreachable). */
  code: number;
  /** Absent when the target could not be reached. */
  summary?: Summary;
}

const OUTCOME: Record<number, string> = { 0: 'passed', 1: 'failed', 2: 'reports not written', 3: 'unreachable' };

/** One line of the console's closing list. */
export function indexLine(e: IndexEntry): string {
  const counts = e.summary
    ? `${e.summary.passed} passed, ${e.summary.failed} failed, ` +
      `${e.summary.warnings} warning${e.summary.warnings === 1 ? '' : 's'}, ${e.summary.skipped} skipped, ` +
      `${e.summary.errors} error${e.summary.errors === 1 ? '' : 's'}`
    : 'no report';
  return `${(OUTCOME[e.code] ?? `exit ${e.code}`).padEnd(11)} ${e.name}  ${e.issuer}  (${counts})`;
}

export function renderIndexHtml(entries: readonly IndexEntry[]): string {
  const rows = entries.map((e) => {
    const s = e.summary;
    const cells = s
      ? [s.total, s.passed, s.failed, s.warnings, s.skipped, s.errors].map((n) => `<td>${n}</td>`).join('')
      : '<td colspan="6">no report</td>';
    const link = s ? `<a href="${h(encodeURIComponent(e.name))}/report.html">${h(e.name)}</a>` : h(e.name);
    return (
      `<tr class="c${e.code}"><td>${link}</td><td>${h(e.issuer)}</td><td>` +
      `${h(OUTCOME[e.code] ?? `exit ${e.code}`)}</td>${cells}</tr>`
    );
  });
  const targets = `${entries.length} target${entries.length === 1 ? '' : 's'}`;
  return (
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance reports: ${targets}</title><link rel="icon" href="data:,">
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a}table{border-collapse:collapse}
td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}tr.c1 td:nth-child(3),tr.c3 ` +
    `td:nth-child(3){color:#cf222e;font-weight:700}</style>
</head><body><h1>Conformance reports: ${targets}</h1>
<table><thead><tr><th>target</th><th>issuer</th><th>outcome</th><th>total</th><th>passed</th><th>failed</th><th>` +
    `warnings</th><th>skipped</th><th>errors</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></body></html>
`
  );
}

/** Writes index.html and index.json into `dir`; returns their paths. */
export async function writeIndex(entries: readonly IndexEntry[], dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const html = join(dir, 'index.html');
  const json = join(dir, 'index.json');
  await writeFile(html, renderIndexHtml(entries));
  await writeFile(
    json,
    `${JSON.stringify({ targets: entries.map((e) => ({ ...e, report: `${e.name}/report.json` })) }, null, 2)}\n`,
  );
  return [html, json];
}
