/**
 * `idp-conformance merge-reports DIR...`: the report folders of a sharded run (`run --shard i/n`
 * on several CI runners) merged into one set of reports, as if one runner had run them all.
 * Refuses to merge reports of different runs (another target, profile, seed or tool version) or
 * that name a scenario twice; a missing shard is said in the console and in the report's notices.
 */
import { cp, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { summarize } from '../harness/run/conformance.ts';
import type { Report, ScenarioResult } from '../harness/model/results.ts';
import { ConsoleReporter, writeReports } from '../reports/index.ts';
import { reportSchema } from '../reports/schema.ts';
import { type Command, UsageError, parseCommandLine } from './command.ts';
import { exitCodeFor, failOnOption, formats } from './run-options.ts';
import { errorMessage } from '../protocol/guards.ts';

const USAGE = `Usage: idp-conformance merge-reports DIR... [options]

Merges the report folders of a sharded run (each written by \`run --shard i/n\`, or any report.json
of the same run) into one set of reports. DIR may also be a report.json file.

Options:
  --report DIR      where the merged reports go (default ./conformance-report)
  --format LIST     json,junit,html,md,sarif (default json,junit,html,md)
  --fail-on LEVEL   exit 1 on: failed (default), warning, error, security — as \`run\` does
  -h, --help        show this help

Exit codes: 0 nothing failed, 1 a scenario failed, 2 usage error or reports that do not belong together.`;

interface Loaded {
  dir: string;
  file: string;
  report: Report;
}

async function load(input: string): Promise<Loaded> {
  const file = input.endsWith('.json') ? resolve(input) : resolve(input, 'report.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
    throw new UsageError(`cannot read ${file}: ${code ?? errorMessage(err)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not JSON`);
  }
  const parsed = reportSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `${file} is not an idp-conformance report.json: ${issue?.path.join('.') || '(top)'}: ${issue?.message}`,
    );
  }
  return { dir: join(file, '..'), file, report: parsed.data };
}

/** The fields every merged report must share, and a way to name a difference. */
const SAME: [string, (r: Report) => string][] = [
  // Each run of the embedded reference listens on a port of its own: the same target all the same.
  ['target', (r) => (r.target.source === 'embedded' ? 'the embedded reference' : r.target.issuer)],
  ['profile', (r) => r.profile],
  ['seed', (r) => String(r.seed)],
  ['tool version', (r) => `${r.tool.name} ${r.tool.version}`],
  ['selection', (r) => JSON.stringify({ only: r.selection.only, skip: r.selection.skip })],
  ['shard count', (r) => String(r.selection.shard?.total ?? '-')],
];

/** One report from several of the same run; throws a UsageError when they do not belong together. */
export function mergeReports(inputs: readonly { file: string; report: Report }[]): Report {
  const [first] = inputs;
  if (!first) throw new UsageError('name at least one report folder');
  for (const [what, of] of SAME) {
    for (const other of inputs.slice(1)) {
      if (of(other.report) !== of(first.report)) {
        throw new UsageError(
          `${other.file} is from another run than ${first.file}: its ${what} is ${of(other.report)}, ` +
            `not ${of(first.report)}`,
        );
      }
    }
  }
  const seen = new Map<string, string>();
  const results: ScenarioResult[] = [];
  for (const { file, report } of inputs) {
    for (const result of report.results) {
      const earlier = seen.get(result.id);
      if (earlier)
        throw new UsageError(`scenario ${result.id} is in both ${earlier} and ${file}: merge each shard once`);
      seen.set(result.id, file);
      results.push(result);
    }
  }
  results.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const notices = [...new Set(inputs.flatMap(({ report }) => report.notices ?? []))];
  const total = first.report.selection.shard?.total;
  if (total !== undefined) {
    const have = new Set(inputs.map(({ report }) => report.selection.shard?.index));
    const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !have.has(i));
    if (missing.length)
      notices.push(
        `incomplete: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${total}`).join(', ')} ` +
          `missing from the merge`,
      );
  }
  const starts = inputs.map(({ report }) => Date.parse(report.startedAt));
  const ends = inputs.map(({ report }) => Date.parse(report.startedAt) + report.durationMs);
  const { shard: _shard, ...selection } = first.report.selection;
  const { notices: _notices, ...base } = first.report;
  return {
    ...base,
    startedAt: new Date(Math.min(...starts)).toISOString(),
    durationMs: Math.max(...ends) - Math.min(...starts),
    selection,
    summary: summarize(results),
    results,
    mergedFrom: inputs.map(({ report }) => ({
      ...(report.selection.shard ? { shard: report.selection.shard } : {}),
      startedAt: report.startedAt,
      durationMs: report.durationMs,
    })),
    ...(notices.length ? { notices } : {}),
  };
}

/** Screenshots named by relative path (screenshots/<id>/file.png) come along into the merged folder. */
async function copyScreenshots(from: Loaded, to: string): Promise<void> {
  const ids = new Set(
    from.report.results
      .filter((r) => r.evidence.some((e) => e.kind === 'screenshot' && /^screenshots\/[a-z0-9.-]+\//.test(e.path)))
      .map((r) => r.id),
  );
  for (const id of ids) {
    await cp(join(from.dir, 'screenshots', id), join(to, 'screenshots', id), { recursive: true, force: true }).catch(
      () => {},
    );
  }
}

export const mergeReportsCommand: Command = {
  summary: 'merge the reports of a sharded run (run --shard i/n) into one',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseCommandLine(argv, {
      report: { type: 'string', default: './conformance-report' },
      format: { type: 'string' },
      'fail-on': { type: 'string', default: 'failed' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const failOn = failOnOption(values['fail-on']);
    if (positionals.length === 0)
      throw new UsageError('name the report folders to merge, e.g. merge-reports shard-1 shard-2');
    const loaded: Loaded[] = [];
    for (const input of positionals) loaded.push(await load(input));
    const merged = mergeReports(loaded);
    const out = resolve(values.report);
    if (loaded.some((l) => resolve(l.dir) === out))
      throw new UsageError(`--report ${values.report} is one of the folders being merged; choose another`);
    for (const from of loaded) await copyScreenshots(from, out);
    const written = await writeReports(merged, out, formats(values.format));
    const console_ = new ConsoleReporter();
    console_.line(
      `idp-conformance: merged ${loaded.length} report${loaded.length === 1 ? '' : 's'} ` +
        `of ${merged.target.source === 'embedded' ? 'the embedded reference' : merged.target.issuer}`,
    );
    for (const notice of merged.notices ?? []) console_.line(`!! ${notice}`);
    console_.summary(merged, written);
    return exitCodeFor(merged, failOn);
  },
};
