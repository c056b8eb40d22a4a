/** Writing the report files: json, junit, html, md, and sarif when asked for. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Report } from '../harness/model/results.ts';
import { renderHtml } from './html.ts';
import { renderJson } from './json.ts';
import { renderJunit } from './junit.ts';
import { renderMarkdown } from './markdown.ts';
import { renderSarif } from './sarif.ts';
import { keysOf } from '../protocol/guards.ts';

export { ConsoleReporter, useColor } from './console.ts';
export { compareWithBaseline, parseBaseline } from './baseline.ts';

export const FORMATS = {
  json: { file: 'report.json', render: renderJson },
  junit: { file: 'junit.xml', render: renderJunit },
  html: { file: 'report.html', render: renderHtml },
  md: { file: 'report.md', render: renderMarkdown },
  sarif: { file: 'report.sarif', render: renderSarif },
} as const;

export type ReportFormat = keyof typeof FORMATS;
export const REPORT_FORMATS: ReportFormat[] = keysOf(FORMATS);
/** What a run writes unless told otherwise (SARIF is asked for: `--format sarif`). */
export const DEFAULT_FORMATS: readonly ReportFormat[] = ['json', 'junit', 'html', 'md'];

export function isReportFormat(name: string): name is ReportFormat {
  return Object.hasOwn(FORMATS, name);
}

/** Write the chosen formats into `dir` (created if needed); returns the paths written. */
export async function writeReports(
  report: Report,
  dir: string,
  formats: readonly ReportFormat[] = DEFAULT_FORMATS,
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const format of formats) {
    const { file, render } = FORMATS[format];
    const target = path.join(dir, file);
    await writeFile(target, render(report));
    written.push(target);
  }
  return written;
}
