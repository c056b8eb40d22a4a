/**
 * `--baseline old/report.json`: how this run's verdicts differ from an earlier run's. The earlier
 * report is read leniently (only each result's id, title and status, plus startedAt and seed), so
 * a report from an older or newer version of the tool still compares.
 */
import { z } from 'zod';
import type { BaselineComparison, Report, Status, VerdictChange } from '../harness/model/results.ts';
import { errorMessage } from '../protocol/guards.ts';

const status = z.enum(['passed', 'failed', 'warning', 'skipped', 'error']);

/** What is read from the earlier report.json. */
export const baselineReportSchema = z.object({
  startedAt: z.string().optional(),
  seed: z.number().optional(),
  results: z.array(
    z.object({ id: z.string(), title: z.string().optional(), status, expected: z.boolean().optional() }),
  ),
});
export type BaselineReport = z.output<typeof baselineReportSchema>;

/** Parses an earlier report.json; throws an Error naming what is wrong. */
export function parseBaseline(text: string, source: string): BaselineReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${errorMessage(error)}`);
  }
  const parsed = baselineReportSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source} is not a report.json: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

const BAD: ReadonlySet<Status | 'absent'> = new Set(['failed', 'warning']);

/** Compares the current report with an earlier one (scenarios not run now are left out). */
export function compareWithBaseline(current: Report, baseline: BaselineReport, source: string): BaselineComparison {
  const before = new Map(baseline.results.map((r) => [r.id, r.status] as const));
  const out: BaselineComparison = {
    source,
    ...(baseline.startedAt ? { startedAt: baseline.startedAt } : {}),
    ...(baseline.seed === undefined ? {} : { seed: baseline.seed }),
    newFailures: [],
    fixed: [],
    changed: [],
  };
  for (const r of current.results) {
    const from = before.get(r.id) ?? 'absent';
    const to = r.status;
    if (from === to) continue;
    const change: VerdictChange = { id: r.id, title: r.title, from, to };
    if (BAD.has(to) && !BAD.has(from)) out.newFailures.push(change);
    else if (BAD.has(from) && to === 'passed') out.fixed.push(change);
    else if (from !== 'absent') out.changed.push(change);
  }
  return out;
}
