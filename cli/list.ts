/** `idp-conformance list`: the scenarios with their id, title, requirements and severity. */
import { patternList } from '../harness/run/glob.ts';
import { type RequirementRow, requirementRows, resolveLevel } from '../harness/model/requirements.ts';
import type { ProfileName } from '../harness/model/results.ts';
import { selectScenarios } from '../harness/run/selection.ts';
import type { Scenario } from '../harness/scenario/scenario.ts';
import { BUILT_IN_SCENARIOS } from '../suites/index.ts';
import { type Command, UsageError, parseOptions } from './command.ts';
import { count, patternHints } from './hints.ts';
import { loadScenarioFiles, mergeScenarios } from './scenario-files.ts';
import { profileOption } from './mcp-target.ts';

const USAGE = `Usage: idp-conformance list [options]

Lists the scenarios: id, severity, level in the profile, requirements and title.

Options:
  --only GLOB         only these ids, e.g. 'pkce.*' (comma-separated, repeatable)
  --profile NAME      the profile whose levels to show: spec (default), rfc, fapi2,
                      mcp-2025-06-18, mcp-2025-11-25, mcp-2026-07-28, or mcp (the newest)
  --scenarios GLOB    include your own scenario files (repeatable)
  --requirements      the requirement audit table: one row per (scenario, requirement) with the
                      party the cited sentence binds and its level, and whether it counts in the profile
  --json              print JSON instead of text
  -h, --help          show this help`;

export const listCommand: Command = {
  summary: 'list the scenarios: id, title, requirements, severity',
  usage: USAGE,
  async run(argv) {
    const v = parseOptions(argv, {
      only: { type: 'string', multiple: true, default: [] },
      profile: { type: 'string', default: 'spec' },
      scenarios: { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean' },
      requirements: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (v.help) {
      console.log(USAGE);
      return 0;
    }
    const profile = profileOption(v.profile) ?? 'spec';
    const all = mergeScenarios(BUILT_IN_SCENARIOS, await loadScenarioFiles(patternList(v.scenarios)));
    const only = patternList(v.only);
    const hints = patternHints(
      all.map((s) => s.id),
      only,
      '--only',
    );
    if (hints.length) throw new UsageError(hints.join('\n'));
    const selected = selectScenarios(all, only);
    if (v.requirements) {
      const table = requirementTable(selected, profile);
      if (v.json) console.log(JSON.stringify(table, null, 2));
      else console.log(formatRequirementTable(table));
      return 0;
    }
    const rows = selected.map((s) => {
      const resolution = resolveLevel(s.requirements, profile, s.requires?.roles ?? []);
      return {
        id: s.id,
        title: s.title,
        severity: s.severity,
        level: resolution.level ?? null,
        requirements: resolution.requirements.map((r) => ({
          label: r.label,
          level: r.level,
          url: r.url ?? null,
          applies: r.applies,
        })),
        requires: s.requires ?? {},
        catches: s.catches ?? [],
      };
    });
    if (v.json) {
      console.log(JSON.stringify(rows, null, 2));
      return 0;
    }
    const width = Math.max(...rows.map((r) => r.id.length));
    for (const r of rows) {
      const reqs = r.requirements.map((q) => `${q.level} ${q.label}${q.applies ? '' : ' (not in profile)'}`).join('; ');
      console.log(`${r.id.padEnd(width)}  ${r.severity.padEnd(8)} ${(r.level ?? 'n/a').padEnd(6)} ${reqs}`);
      console.log(`${' '.repeat(width)}  ${r.title}`);
    }
    console.log(`\n${count(rows.length, 'scenario')} (profile ${profile})`);
    return 0;
  },
};

/** The audit table (docs/catalog.md): every (scenario, requirement, party, level), in catalog order. */
export function requirementTable(scenarios: readonly Scenario[], profile: ProfileName): RequirementRow[] {
  return scenarios.flatMap((s) => requirementRows(s.id, s.requirements, profile, s.requires?.roles ?? []));
}

export function formatRequirementTable(rows: readonly RequirementRow[]): string {
  const head = ['scenario', 'requirement', 'party', 'level', 'counts'];
  const cells = rows.map((r) => [
    r.scenario,
    `${r.label} [${r.key}]`,
    r.party,
    r.level,
    r.counts ? 'yes' : `no (${r.why})`,
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i === c.length - 1 ? x : x.padEnd(width[i]!))).join('  ');
  return [
    line(head),
    line(width.map((w) => '-'.repeat(w))),
    ...cells.map(line),
    '',
    `${count(rows.length, 'requirement')} of ${count(new Set(rows.map((r) => r.scenario)).size, 'scenario')}`,
  ].join('\n');
}
