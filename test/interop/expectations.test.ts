/**
 * The interop expectations files and the compatibility table of docs/interop.md: every file covers the
 * whole catalog with a classified one-line reason, the table is generated from them, and the
 * matrix's compare / --update logic says what it should.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report, ScenarioResult, Status } from '../../harness/model/results.ts';
import {
  type Expectations,
  compare,
  describeDifference,
  expectationsFile,
  recordCommand,
  renderExpectations,
  unlisted,
  updatedExpectations,
} from '../../interop/matrix.ts';
import { INTEROP_PAGE, allExpectations, compatibilityTable, withCompatibilityTable } from '../../interop/table.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { stubResult } from '../support/stub-result.ts';

const STATUSES: Status[] = ['passed', 'failed', 'warning', 'skipped', 'error'];

describe('the interop expectations', () => {
  const all = allExpectations();

  it('exist for the IdPs built on this branch', () => {
    expect(all.map((e) => e.idp)).toEqual(expect.arrayContaining(['django-oauth-toolkit', 'oidc-provider']));
  });

  for (const e of all) {
    it(`${e.idp}: cover every scenario of the catalog, each with a status and a classified one-line reason`, () => {
      const ids = BUILT_IN_SCENARIOS.map((s) => s.id);
      const unlisted = ids.filter((id) => !e.scenarios[id]);
      expect(
        unlisted,
        `interop/expectations/${e.idp}.json lists no ${unlisted.join(', ')}: record with ` +
          `${recordCommand(e.idp, unlisted)} (or npm run interop -- --update --only ID for every IdP), ` +
          'then replace each TODO reason with a classified one',
      ).toEqual([]);
      const gone = Object.keys(e.scenarios).filter((id) => !ids.includes(id));
      expect(gone, `interop/expectations/${e.idp}.json lists scenarios the catalog no longer has`).toEqual([]);
      for (const [id, x] of Object.entries(e.scenarios)) {
        expect(STATUSES, id).toContain(x.status);
        for (const other of x.also ?? []) expect(STATUSES, id).toContain(other);
        expect(x.reason.trim(), id).not.toBe('');
        expect(x.reason, id).not.toMatch(/\n/);
        // --update marks what a person still has to classify.
        expect(x.reason, id).not.toMatch(/^TODO/);
      }
    });
  }

  it('are listed in docs/interop.md as they are (npm run interop:table rewrites the table)', () => {
    const page = readFileSync(INTEROP_PAGE, 'utf8');
    expect(withCompatibilityTable(page)).toBe(page);
    for (const e of all) {
      for (const [id, x] of Object.entries(e.scenarios)) {
        if (x.status !== 'passed' || x.also)
          expect(compatibilityTable(), `${e.idp} ${id}`).toContain(`| \`${id}\` | ${x.status}`);
      }
    }
  });
});

const result = stubResult;
const report = (results: ScenarioResult[]) => ({ results }) as unknown as Report;

describe('the matrix comparison', () => {
  const expected: Expectations = {
    idp: 'x',
    scenarios: {
      'a.same': { status: 'passed', reason: 'passes' },
      'b.changed': { status: 'failed', reason: 'deviation: …' },
      'c.gone': { status: 'skipped', reason: 'product limitation: …' },
    },
  };
  const run = report([
    result('a.same', 'passed'),
    result('b.changed', 'passed'),
    result('d.new', 'error', 'the target stopped answering'),
  ]);

  it('names every scenario whose verdict changed, appeared or vanished', () => {
    expect(compare(expected, run).map(describeDifference)).toEqual([
      'b.changed: expected failed, got passed',
      'd.new: error, but the expectations do not list it (the target stopped answering)',
      'c.gone: expected skipped, but the run has no such scenario',
    ]);
    expect(unlisted(compare(expected, run))).toEqual(['d.new']);
  });

  it('--update keeps the reasons of unchanged verdicts and marks the others TODO with what the run said', () => {
    const updated = updatedExpectations('x', expected, run);
    expect(updated.scenarios).toEqual({
      'a.same': { status: 'passed', reason: 'passes' },
      'b.changed': { status: 'passed', reason: 'TODO: was failed; passed' },
      'd.new': { status: 'error', reason: 'TODO: the target stopped answering' },
    });
    expect(compare(updated, run)).toEqual([]);
  });

  it('--update with --only rewrites only the selected scenarios and keeps every other entry', () => {
    const updated = updatedExpectations('x', expected, report([result('d.new', 'skipped')]), { partial: true });
    expect(updated.scenarios).toEqual({
      ...expected.scenarios,
      'd.new': { status: 'skipped', reason: 'TODO: n/a' },
    });
  });

  it('--update --only ID adds a scenario the expectations do not list, and the file changes by its entry only', () => {
    for (const e of allExpectations()) {
      const run = report([result('pkce.zz-new', 'failed', 'the token endpoint accepted it')]);
      const updated = updatedExpectations(e.idp, e, run, { partial: true });
      expect(updated.scenarios['pkce.zz-new']).toEqual({
        status: 'failed',
        reason: 'TODO: the token endpoint accepted it',
      });
      const entry = [
        '    "pkce.zz-new": {',
        '      "status": "failed",',
        '      "reason": "TODO: the token endpoint accepted it"',
        '    },\n',
      ].join('\n');
      const text = renderExpectations(updated);
      expect(text).toContain(entry);
      expect(text.replace(entry, '')).toBe(readFileSync(expectationsFile(e.idp), 'utf8'));
    }
  });

  it('names the command that records scenarios the expectations do not list', () => {
    expect(recordCommand('x', ['d.new', 'e.new'])).toBe(
      'npm run interop -- --idp x --update --only d.new --only e.new',
    );
  });

  it('accepts the other statuses a timing-dependent verdict is recorded with, and keeps its reason on --update', () => {
    const racy: Expectations = {
      idp: 'x',
      scenarios: { 'r.race': { status: 'passed', also: ['failed'], reason: 'deviation, timing-dependent: …' } },
    };
    for (const status of ['passed', 'failed'] as const) {
      expect(compare(racy, report([result('r.race', status)]))).toEqual([]);
      expect(updatedExpectations('x', racy, report([result('r.race', status)])).scenarios).toEqual(racy.scenarios);
    }
    expect(compare(racy, report([result('r.race', 'error', 'boom')])).map(describeDifference)).toEqual([
      'r.race: expected passed, got error — boom',
    ]);
  });
});
