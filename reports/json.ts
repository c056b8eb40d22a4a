/** report.json (schemaVersion 1, docs/reports.md): the report as it is. */
import type { Report } from '../harness/model/results.ts';

export function renderJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
