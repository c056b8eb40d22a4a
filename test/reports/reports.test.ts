import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../harness/model/results.ts';
import { ConsoleReporter } from '../../reports/console.ts';
import { renderHtml } from '../../reports/html.ts';
import { renderJson } from '../../reports/json.ts';
import { renderJunit } from '../../reports/junit.ts';
import { renderMarkdown } from '../../reports/markdown.ts';
import { reportSchema } from '../../reports/schema.ts';
import { SCHEMA_DIR, schemaFiles } from '../../scripts/schema.ts';
import { baseReport, result } from '../support/report-fixture.ts';
import { parseXml } from '../support/xml.ts';

const nasty = '<script>alert("x")</script> & \'quotes\' \u0001 ]]>';

const sampleReport: Report = {
  ...baseReport([]),
  summary: { total: 7, passed: 1, failed: 2, warnings: 1, skipped: 1, errors: 1, expectedFailures: 1 },
  results: [
    result('code.happy-path', 'passed'),
    result('pkce.verifier-mismatch', 'failed', {
      message: `A token request got HTTP 200 ${nasty}; RFC 7636 §4.6 requires invalid_grant.`,
      evidence: [
        {
          kind: 'http',
          label: 'token request',
          request: {
            method: 'POST',
            url: 'https://idp.example/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `code=[REDACTED:code:1]&x=${nasty}`,
          },
          response: { status: 200, headers: {}, body: '{"access_token":"[REDACTED:access_token:1]"}' },
          durationMs: 5,
        },
        {
          kind: 'counterexample',
          seed: 42,
          runs: 50,
          path: '3:1',
          value: '"https://app.example/cb/.."',
          replay: '--seed 42 --runs 50 --only pkce.verifier-mismatch',
        },
        { kind: 'screenshot', path: 'shots/x.png' },
        { kind: 'note', text: nasty, label: 'note' },
      ],
    }),
    result('code.single-use', 'failed', { message: 'known gap', expected: true }),
    result('refresh.rotation', 'warning', {
      level: 'SHOULD',
      message: 'no rotation',
      findings: [{ status: 'warning', message: 'no rotation' }],
    }),
    result('device.pending', 'skipped', {
      skipReason: 'needs the device client (clients.device in the target config)',
    }),
    result('token.no-store', 'error', {
      message: 'the target stopped answering: cannot reach x: connection refused (ECONNREFUSED)',
    }),
    result('discovery.document', 'passed', { unexpectedPass: true }),
  ],
};

describe('report.json', () => {
  it('validates against the report schema, round-trips, and has the fields of docs/reports.md', () => {
    const parsed = reportSchema.parse(JSON.parse(renderJson(sampleReport)));
    expect(parsed).toEqual(sampleReport);
    expect(Object.keys(parsed.results[0]!)).toEqual(
      expect.arrayContaining(['id', 'title', 'area', 'status', 'severity', 'requirements', 'durationMs', 'evidence']),
    );
  });

  it('rejects what the schema forbids', () => {
    expect(reportSchema.safeParse({ ...sampleReport, schemaVersion: 2 }).success).toBe(false);
    expect(
      reportSchema.safeParse({ ...sampleReport, results: [{ ...sampleReport.results[0], status: 'ok' }] }).success,
    ).toBe(false);
  });
});

describe('junit.xml', () => {
  const root = parseXml(renderJunit(sampleReport));
  const cases = root.children.flatMap((s) =>
    s.children.filter((c) => c.name === 'testcase').map((c) => ({ suite: s, c })),
  );

  it('the well-formedness checker itself rejects broken XML', () => {
    for (const bad of [
      '<a><b></a></b>',
      '<a x="1" x="2"/>',
      '<a>1 & 2</a>',
      '<a x=1/>',
      '<a/><b/>',
      '<a>\u0001</a>',
      '<a>',
    ]) {
      expect(() => parseXml(bad), bad).toThrow();
    }
  });

  it('is well formed, one testcase per scenario, classname = area', () => {
    expect(root.name).toBe('testsuites');
    expect(cases).toHaveLength(sampleReport.results.length);
    for (const { suite, c } of cases) {
      expect(c.name).toBe('testcase');
      expect(c.attrs.classname).toBe(suite.attrs.name);
    }
  });

  it('marks failures, errors, skips and expected failures; counts agree', () => {
    const kinds = Object.fromEntries(
      cases.map(({ c }) => [
        c.attrs.name!.split(':')[0],
        c.children
          .map((x) => x.name)
          .filter((n) => n !== 'system-out' || !c.children.some((x) => x.name !== 'system-out'))
          .join(',') || 'pass',
      ]),
    );
    expect(kinds).toEqual({
      'code.happy-path': 'pass',
      'pkce.verifier-mismatch': 'failure',
      'code.single-use': 'skipped',
      'refresh.rotation': 'system-out',
      'device.pending': 'skipped',
      'token.no-store': 'error',
      'discovery.document': 'pass',
    });
    expect(root.attrs).toMatchObject({ tests: '7', failures: '1', errors: '1', skipped: '2' });
    const failure = cases.find(({ c }) => c.attrs.name!.startsWith('pkce.'))!.c.children[0]!;
    expect(failure.attrs.message).toContain('<script>alert("x")</script> & \'quotes\'');
    expect(failure.text).toContain('https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2');
  });
});

describe('report.html', () => {
  const html = renderHtml(sampleReport);

  it('loads nothing from another host: scripts and styles inline, screenshots from the files beside it', () => {
    const sources = [...html.matchAll(/<(?:script|img|iframe|link)\b[^>]*\b(?:src|href)="([^"]+)"/gi)].map((m) => m[1]);
    expect(sources.filter((src) => !src!.startsWith('data:'))).toEqual(['shots/x.png']);
    expect(html).not.toMatch(/url\(|@import/);
    expect(
      [...html.matchAll(/\bhref="([^"]+)"/g)]
        .map((m) => m[1])
        .filter((h) => !/^(#|data:|https:\/\/www\.rfc-editor\.org\/)/.test(h!)),
    ).toEqual(['shots/x.png']);
  });

  it('shows a screenshot as a linked image with its label; an absolute path as a file URL', () => {
    expect(html).toContain(
      '<a href="shots/x.png" target="_blank" rel="noopener"><img src="shots/x.png" alt="screenshot" ' +
        'loading="lazy"></a>',
    );
    const shot = (path: string, label?: string) =>
      renderHtml({
        ...sampleReport,
        results: [
          result('browser.code-flow', 'passed', {
            evidence: [{ kind: 'screenshot', path, ...(label ? { label } : {}) }],
          }),
        ],
      });
    const absolute = shot('/tmp/idp conformance/screenshots/browser.code-flow/01-login.png', 'login "page" <1>');
    expect(absolute).toContain(
      '<img src="file:///tmp/idp%20conformance/screenshots/browser.code-flow/01-login.png" alt="login ' +
        '&quot;page&quot; &lt;1&gt;"',
    );
    expect(absolute).toContain('<figcaption>login &quot;page&quot; &lt;1&gt;</figcaption>');
    expect(shot('screenshots/a b/01-x.png')).toContain('src="screenshots/a%20b/01-x.png"');
  });

  it('contains every result with its jump link, requirement link, status and evidence; escapes everything', () => {
    for (const r of sampleReport.results) {
      expect(html).toContain(`id="r-${r.id.replace('.', '-')}"`);
      expect(html).toContain(`href="#r-${r.id.replace('.', '-')}"`);
      expect(html).toContain(`data-status="${r.status}"`);
    }
    expect(html).toContain('href="https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2"');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)');
    expect(html).toContain(
      '<mark class="decisive">deciding exchange</mark>token request: POST https://idp.example/token',
    );
    expect(html).toContain('--seed 42 --runs 50 --only pkce.verifier-mismatch');
    // A property failure's counterexample, seed and replay are shown, not folded into the evidence.
    const section = /<section[^>]*id="r-pkce-verifier-mismatch"[\s\S]*?<\/section>/.exec(html)![0];
    const beforeEvidence = section.slice(0, section.indexOf('<details'));
    expect(beforeEvidence).toContain('<pre>&quot;https://app.example/cb/..&quot;</pre>');
    expect(beforeEvidence).toContain('seed 42');
    expect(beforeEvidence).toContain('<code>--seed 42 --runs 50 --only pkce.verifier-mismatch</code>');
    expect(html).toContain('XFAIL');
  });
  // The filters (count cards, area) are tested in Chromium: test/browser/report.test.ts.
});

describe('report.md and the console', () => {
  it('the markdown lists failures, warnings and errors with links, and the skipped ones', () => {
    const md = renderMarkdown(sampleReport);
    expect(md).toContain('| 0 | 0 | 1 | 1 | 1 | 1 | 2 | 1 |');
    expect(md).toContain('| FAIL | pkce\\.verifier\\-mismatch | unclassified | high |');
    expect(md).toContain('[MUST RFC 6749 §4\\.1\\.2](https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2)');
    expect(md).toContain('**1 skipped:**');
    expect(md).toContain(
      'Passed although listed in expectedFailures (remove them from the list): discovery\\.document',
    );
  });

  it('the console prints a line per result and a summary, colored only when asked', () => {
    let out = '';
    const reporter = new ConsoleReporter({
      write: (t) => {
        out += t;
      },
      color: false,
    });
    for (const r of sampleReport.results) reporter.result(r);
    reporter.summary(sampleReport, ['dir/report.json']);
    expect(out).toContain('  FAIL  pkce.verifier-mismatch (12 ms)\n');
    expect(out).toContain('  SKIP  device.pending\n        needs the device client');
    expect(out).toContain(
      '7 scenarios: 1 passed, 2 failed, 1 warning, 1 skipped, 1 error (1 expected) in 1.2 s — profile spec, seed 42',
    );
    expect(out).not.toContain('\x1b[');
    let colored = '';
    new ConsoleReporter({
      write: (t) => {
        colored += t;
      },
      color: true,
    }).result(sampleReport.results[1]!);
    expect(colored).toContain('\x1b[31mFAIL ');
  });
});

describe('published JSON schemas', () => {
  it('schema/*.json are current (run `npm run schema` after changing a zod schema)', async () => {
    for (const [name, text] of Object.entries(schemaFiles())) {
      expect(await readFile(path.join(SCHEMA_DIR, name), 'utf8'), name).toBe(text);
    }
  });
});
