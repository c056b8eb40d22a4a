/**
 * The compatibility table of docs/interop.md, rendered from interop/expectations/*.json (one source of
 * truth): `npm run interop:table` rewrites the part of docs/interop.md between the interop markers; a
 * test (test/interop/table.test.ts) fails when the committed table is stale.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Status } from '../harness/model/results.ts';
import { betweenMarkers } from '../scripts/catalog.ts';
import { type Expectations, IDPS, expectationsFile, parseExpectations } from './matrix.ts';

/** The page that shows the compatibility table. */
export const INTEROP_PAGE = fileURLToPath(new URL('../docs/interop.md', import.meta.url));
export const BEGIN = '<!-- interop:begin (npm run interop:table) -->';
export const END = '<!-- interop:end -->';

const ORDER: Status[] = ['failed', 'warning', 'error', 'skipped', 'passed'];
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

/** The expectations files present, in the matrix's order. */
export function allExpectations(): Expectations[] {
  return IDPS.map((i) => expectationsFile(i.name))
    .filter((f) => existsSync(f))
    .map((f) => parseExpectations(readFileSync(f, 'utf8')));
}

export function counts(e: Expectations): Record<Status, number> & { harness: number } {
  const all = Object.values(e.scenarios);
  const n = (s: Status) => all.filter((x) => x.status === s).length;
  return {
    passed: n('passed'),
    failed: n('failed'),
    warning: n('warning'),
    skipped: n('skipped'),
    error: n('error'),
    harness: all.filter((x) => x.reason.startsWith('harness:')).length,
  };
}

export function idpTable(e: Expectations): string {
  const c = counts(e);
  const total = Object.keys(e.scenarios).length;
  const rows = Object.entries(e.scenarios)
    .filter(([, x]) => x.status !== 'passed' || x.also?.length)
    .sort(([a, x], [b, y]) => ORDER.indexOf(x.status) - ORDER.indexOf(y.status) || a.localeCompare(b))
    .map(
      ([id, x]) =>
        `| \`${id}\` | ${x.status}${x.also?.length ? ` (sometimes ${x.also.join(', ')})` : ''} | ${cell(x.reason)} |`,
    );
  return [
    `### ${e.idp}`,
    '',
    ...(e.setup ? [cell(e.setup), ''] : []),
    `${total} scenarios: ${c.passed} passed, ${c.failed} failed, ${c.warning} warnings, ${c.skipped} ` +
      `skipped, ${c.error} errors; ` +
      `${c.harness} of these results are the harness's fault (\`harness:\`).`,
    '',
    '| scenario | status | why |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}

export function compatibilityTable(list: readonly Expectations[] = allExpectations()): string {
  const summary = [
    '| IdP | passed | failed | warnings | skipped | errors | `harness:` |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...list.map((e) => {
      const c = counts(e);
      return `| ${e.idp} | ${c.passed} | ${c.failed} | ${c.warning} | ${c.skipped} | ${c.error} | ${c.harness} |`;
    }),
  ].join('\n');
  return [summary, ...list.map(idpTable)].join('\n\n');
}

/** The page's text with the table between the markers replaced by the current one. */
export function withCompatibilityTable(page: string, table = compatibilityTable()): string {
  return betweenMarkers(page, BEGIN, END, table);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeFile(INTEROP_PAGE, withCompatibilityTable(await readFile(INTEROP_PAGE, 'utf8')));
  console.log('wrote the compatibility table in docs/interop.md');
}
