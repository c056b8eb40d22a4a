/** The console reporter: a line per scenario as it finishes, then the summary. */
import type { Report, ScenarioResult, Status } from '../harness/model/results.ts';
import { consoleText as safe } from './escape.ts';
import {
  baselineLines,
  groupCounts,
  plantedFlawsLine,
  requirementsText,
  resultDetail,
  resultLabel,
  splitLine,
  browserWalksLine,
  kindLine,
  summaryLine,
} from './format.ts';

const COLORS: Record<Status | 'expected', string> = {
  passed: '\x1b[32m',
  failed: '\x1b[31m',
  warning: '\x1b[33m',
  skipped: '\x1b[90m',
  error: '\x1b[35m',
  expected: '\x1b[36m',
};

export interface ConsoleReporterOptions {
  write?: (text: string) => void;
  /** Default: colors on a TTY unless NO_COLOR is set. */
  color?: boolean;
}

export function useColor(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined;
}

export class ConsoleReporter {
  readonly #write: (text: string) => void;
  readonly #color: boolean;
  constructor(options: ConsoleReporterOptions = {}) {
    this.#write = options.write ?? ((t) => process.stdout.write(t));
    this.#color = options.color ?? useColor();
  }

  #paint(key: Status | 'expected', text: string): string {
    return this.#color ? `${COLORS[key]}${text}\x1b[0m` : text;
  }

  line(text: string): void {
    this.#write(`${safe(text)}\n`);
  }

  result(r: ScenarioResult): void {
    const label = this.#paint(r.expected ? 'expected' : r.status, resultLabel(r).padEnd(5));
    const time = r.status === 'skipped' ? '' : ` (${r.durationMs} ms)`;
    this.#write(`  ${label} ${r.id}${time}\n`);
    const detail = safe(resultDetail(r));
    if (detail && r.status !== 'passed') this.#write(`        ${detail}\n`);
    else if (r.unexpectedPass) this.#write(`        ${detail}\n`);
    if (r.status === 'failed' || r.status === 'warning') this.#write(`        ${requirementsText(r)}\n`);
    for (const f of r.findings ?? [])
      if (f.message !== r.message) this.#write(`        also ${f.status}: ${safe(f.message)}\n`);
    for (const e of r.evidence) {
      if (e.kind === 'counterexample')
        this.#write(
          `        counterexample ${safe(e.value)} (${e.runs} run${e.runs === 1 ? '' : 's'}, ` +
            `property seed ${e.seed}); replay: add ${safe(e.replay)}\n`,
        );
    }
  }

  summary(report: Report, written: string[] = []): void {
    this.#write(`\n${summaryLine(report)}\n`);
    const kind = kindLine(report);
    if (kind) this.#write(`${safe(kind)}\n`);
    const c = groupCounts(report.results);
    if (c.security + c.interop + c.unclassified) this.#write(`${splitLine(report.results)}\n`);
    const browser = browserWalksLine(report);
    if (browser) this.#write(`${safe(browser)}\n`);
    const flaws = plantedFlawsLine(report);
    if (flaws) this.#write(`!! ${flaws}\n`);
    for (const line of baselineLines(report)) this.#write(`${line}\n`);
    if (report.discoveryOverrides)
      this.#write(
        `discoveryOverrides (merged over the fetched discovery ` +
          `document): ${safe(JSON.stringify(report.discoveryOverrides))}\n`,
      );
    for (const n of report.notices ?? []) this.#write(`note: ${safe(n)}\n`);
    if (written.length) this.#write(`reports: ${written.join(', ')}\n`);
  }
}
