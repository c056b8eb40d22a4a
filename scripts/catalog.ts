/**
 * The catalog table of docs/catalog.md, rendered from the scenarios themselves (one source of truth):
 * `npm run catalog` rewrites the part of docs/catalog.md between the catalog markers, and the requirement
 * audit table (test/cli/__snapshots__/requirements.txt, what `idp-conformance list --requirements` prints);
 * a test fails when either committed table is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRequirementTable, requirementTable } from '../cli/list.ts';
import { requirementLabel } from '../harness/model/requirements.ts';
import type { Scenario } from '../harness/scenario/scenario.ts';
import { BUILT_IN_SCENARIOS } from '../suites/index.ts';
import { MCP_BEGIN, MCP_END, mcpCatalogTables } from './mcp-catalog.ts';

/** The page that shows the catalog table. */
export const CATALOG_PAGE = fileURLToPath(new URL('../docs/catalog.md', import.meta.url));
export const BEGIN = '<!-- catalog:begin (npm run catalog) -->';
export const END = '<!-- catalog:end -->';
/** The requirement audit table, compared by test/harness/requirements-audit.test.ts. */
export const REQUIREMENTS_AUDIT = fileURLToPath(new URL('../test/cli/__snapshots__/requirements.txt', import.meta.url));

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

export function catalogTable(scenarios: readonly Scenario[] = BUILT_IN_SCENARIOS): string {
  const rows = scenarios.map((s) => {
    const requirements = s.requirements
      .map((r) => `${r.level} ${requirementLabel(r)}${r.party === 'client' ? ' [binds the client]' : ''}`)
      .join('; ');
    const flaws = s.catches?.length ? s.catches.map((f) => `\`${f}\``).join(', ') : '—';
    const appliesTo = s.appliesTo === 'oidc' ? 'OpenID providers' : 'every AS';
    return `| \`${s.id}\` | ${appliesTo} | ${cell(s.title)} | ${cell(requirements)} | ${flaws} |`;
  });
  return [
    `${scenarios.length} scenarios.`,
    '',
    '| id | applies to | checks | requirements | planted flaws it catches |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** `text` with what stands between the `begin` and `end` markers replaced by `table`. */
export function betweenMarkers(text: string, begin: string, end: string, table: string): string {
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start === -1 || stop < start) throw new Error(`the page has no ${begin} … ${end} section`);
  return `${text.slice(0, start + begin.length)}\n${table}\n${text.slice(stop)}`;
}

/** The page's text with the tables between the markers replaced by the current ones (the catalog, MCP's sentences). */
export function withCatalog(page: string, table = catalogTable()): string {
  return betweenMarkers(betweenMarkers(page, BEGIN, END, table), MCP_BEGIN, MCP_END, mcpCatalogTables());
}

/** The requirement audit table's text: one row per (scenario, requirement, party, level) under the spec profile. */
export function requirementsAudit(scenarios: readonly Scenario[] = BUILT_IN_SCENARIOS): string {
  return `${formatRequirementTable(requirementTable(scenarios, 'spec'))}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeFile(CATALOG_PAGE, withCatalog(await readFile(CATALOG_PAGE, 'utf8')));
  console.log('wrote the catalog table in docs/catalog.md');
  await writeFile(REQUIREMENTS_AUDIT, requirementsAudit());
  console.log(`wrote the requirement audit table in ${path.relative(process.cwd(), REQUIREMENTS_AUDIT)}`);
}
