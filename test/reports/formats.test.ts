/**
 * The report formats checked by parsers we did not write: JUnit with fast-xml-parser, SARIF with
 * ajv against the SARIF 2.1.0 JSON schema (test/fixtures/sarif-2.1.0-rtm.5.json, vendored from
 * the npm package @microsoft/jest-sarif 1.0.0-beta.0, lib/schemas/, MIT; the schema the OASIS
 * SARIF TC published as 2.1.0), the Markdown with markdown-it (raw HTML would show as html
 * tokens), and the curl command by bash itself.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import type { HttpEvidence, Report } from '../../harness/model/results.ts';
import { compareWithBaseline, parseBaseline } from '../../reports/baseline.ts';
import { ConsoleReporter } from '../../reports/console.ts';
import { GROUPS, groupOf, orderResults, visibleControls } from '../../reports/format.ts';
import { renderHtml } from '../../reports/html.ts';
import { renderJson } from '../../reports/json.ts';
import { renderJunit } from '../../reports/junit.ts';
import { MAX_MARKDOWN_BYTES, markdownText, renderMarkdown } from '../../reports/markdown.ts';
import { consoleText } from '../../reports/escape.ts';
import { curlCommand, decidingExchange, envName, replayCommand, shellQuote } from '../../reports/reproduce.ts';
import { renderSarif } from '../../reports/sarif.ts';
import { reportSchema } from '../../reports/schema.ts';
import { NASTY, SECRET, bigReport, decidingToken, result, sampleReport } from '../support/report-fixture.ts';

const report = sampleReport();
// ajv-draft-04 and ajv-formats are CommonJS with a default export: required, typed by their own declarations.
const require = createRequire(import.meta.url);
const AjvDraft04 = require('ajv-draft-04') as typeof import('ajv-draft-04').default;
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;

describe('reading order', () => {
  it(
    'security, interop, unclassified failures, warnings, errors, expected failures, passed (an unexpected pass ' +
      'first), skipped',
    () => {
      const ordered = orderResults(report.results);
      expect(ordered.map((r) => r.id)).toEqual([
        'code.single-use',
        'pkce.plain-rejected',
        'redirect.exact-match',
        'refresh.rotation',
        'token.no-store',
        'code.bound-to-client',
        'discovery.document',
        'code.happy-path',
        'device.pending',
      ]);
      const ranks = ordered.map((r) => GROUPS.indexOf(groupOf(r)));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    },
  );
});

describe('report.json', () => {
  it('carries the planted flaws, the baseline and the decisive mark, and validates against the report schema', () => {
    const parsed = reportSchema.parse(JSON.parse(renderJson(report)));
    expect(parsed.plantedFlaws).toEqual(['code-reuse-allowed', 'pkce-plain-allowed']);
    expect(parsed.baseline?.newFailures.map((c) => c.id)).toEqual(['code.single-use']);
    expect(
      parsed.results.find((r) => r.id === 'code.single-use')!.evidence.filter((e) => e.kind === 'http' && e.decisive),
    ).toHaveLength(1);
  });
});

describe('the reproduce block', () => {
  it('takes the marked exchange, else the last one of a failure; none for a pass', () => {
    const r = report.results.find((x) => x.id === 'code.single-use')!;
    expect(decidingExchange(r)).toEqual({ evidence: decidingToken, marked: true });
    const unmarked = result('a.b', 'failed', {
      evidence: [{ ...decidingToken, decisive: undefined } as unknown as HttpEvidence, { kind: 'note', text: 'x' }],
    });
    expect(decidingExchange(unmarked)?.marked).toBe(false);
    expect(decidingExchange(result('a.b', 'passed', { evidence: unmarked.evidence }))).toBeUndefined();
  });

  it(
    'names secrets as $ENV variables and quotes target text so bash hands curl exactly the ' + 'recorded request',
    async () => {
      const { command, env } = curlCommand(decidingToken);
      expect(env).toEqual(['CLIENT_ID', 'CLIENT_SECRET', 'CODE_2']);
      expect(command).toContain('-u "$CLIENT_ID:$CLIENT_SECRET"');
      expect(command).not.toContain('REDACTED');
      expect(command).not.toContain('content-length');
      expect(envName('[REDACTED:access_token:1]')).toBe('ACCESS_TOKEN');
      expect(envName('[REDACTED:form-value]')).toBe('FORM_VALUE');
      // bash parses the command; printf stands in for curl and prints each argument it gets.
      const script = command.replace(/^curl /, "printf '%s\\0' ");
      const values = { CLIENT_ID: 'web', CLIENT_SECRET: SECRET, CODE_2: 'the-code' };
      const { stdout } = await promisify(execFile)('bash', ['-c', script], {
        env: { PATH: process.env.PATH, ...values },
      });
      const args = stdout.split('\0').slice(0, -1);
      expect(args).toEqual([
        '-i',
        '-X',
        'POST',
        '-H',
        'content-type: application/x-www-form-urlencoded',
        '-u',
        `web:${SECRET}`,
        '--data-raw',
        `grant_type=authorization_code&code=the-code&client_secret=${SECRET}&x=${encodeURIComponent(NASTY)}`,
        'https://idp.example/token',
      ]);
      // Raw control characters, quotes, $ and backticks stay literal.
      const raw = curlCommand({
        ...decidingToken,
        request: {
          method: 'POST',
          url: 'https://idp.example/t',
          headers: {},
          body: `a'b"c$(id)\`x\`\u0001\n[REDACTED:code:1]`,
        },
      });
      const { stdout: out2 } = await promisify(execFile)(
        'bash',
        ['-c', raw.command.replace(/^curl /, "printf '%s\\0' ")],
        { env: { PATH: process.env.PATH, CODE: 'c' } },
      );
      expect(out2.split('\0')).toContain(`a'b"c$(id)\`x\`\u0001\nc`);
    },
  );

  it('shows invisible and bidirectional controls in target text as code points', () => {
    expect(visibleControls('a\u202eb\u0007c\td\ne')).toBe('a⟨U+202E⟩b⟨U+0007⟩c\td\ne');
    // One class for every reporter: the Arabic letter mark (U+061C) reorders text as the other bidi controls do.
    for (const text of ['a\u061cb', 'a\u202eb', 'a\u2067b', 'a\u0085b']) {
      expect(visibleControls(text)).not.toBe(text);
      expect(consoleText(text)).not.toBe(text);
      expect(shellQuote(text)).toMatch(/^\$'a\\u|^\$'a\\x/);
    }
    const html = renderHtml(report);
    expect(html).not.toMatch(/[\u202e\u0001]/);
    expect(html).toContain('⟨U+202E⟩');
    expect(renderJunit(report)).not.toMatch(/[\u202e\u0001]/);
    const { command } = curlCommand({
      ...decidingToken,
      request: { ...decidingToken.request, url: 'https://idp.example/t\u202e' },
    });
    expect(command).toContain("$'https://idp.example/t\\u202e'");
  });

  it('replays with the seed, the flaws and the property line', () => {
    const r = report.results.find((x) => x.id === 'code.single-use')!;
    expect(replayCommand(report, r)).toBe(
      'idp-conformance run --target "$TARGET_CONFIG" --flaw code-reuse-allowed --flaw pkce-plain-allowed --seed 42 ' +
        '--only code.single-use',
    );
    expect(
      replayCommand(
        { ...report, target: { ...report.target, source: 'embedded' }, plantedFlaws: [] },
        report.results.find((x) => x.id === 'redirect.exact-match')!,
      ),
    ).toBe('idp-conformance run --seed 42 --runs 50 --only redirect.exact-match');
  });
});

describe('junit.xml (fast-xml-parser)', () => {
  const xml = renderJunit(report);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name),
    textNodeName: '#text',
  });
  const doc = parser.parse(xml) as {
    testsuites: {
      testsuite: {
        name: string;
        properties: { property: { name: string; value: string }[] };
        testcase: Record<string, unknown>[];
      }[];
    };
  };
  const cases = doc.testsuites.testsuite.flatMap((s) => s.testcase);
  const byId = (id: string) => cases.find((c) => String(c.name).startsWith(`${id}:`))!;

  it('is well formed', () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(XMLValidator.validate('<a><b></a>')).not.toBe(true);
  });

  it('has the run in <properties> of every testsuite: seed, profile, planted flaws, the baseline', () => {
    for (const suite of doc.testsuites.testsuite) {
      const props = Object.fromEntries(suite.properties.property.map((p) => [p.name, p.value]));
      expect(props).toMatchObject({
        seed: '42',
        profile: 'spec',
        plantedFlaws: 'code-reuse-allowed,pkce-plain-allowed',
        'baseline.newFailures': 'code.single-use',
      });
    }
    const clean = parser.parse(
      renderJunit({ ...report, plantedFlaws: undefined as never, baseline: undefined as never }),
    ) as typeof doc;
    expect(clean.testsuites.testsuite[0]!.properties.property.find((p) => p.name === 'plantedFlaws')!.value).toBe(
      'none',
    );
  });

  it('a failure says how it failed: status, Location, the redacted body, replay options and the curl command', () => {
    const failure = byId('code.single-use').failure as { '#text': string; type: string; message: string };
    expect(failure.type).toBe('security (MUST)');
    expect(failure.message).toContain(NASTY.slice(0, 20));
    const text = failure['#text'];
    expect(text).toContain('response status: 200');
    expect(text).toContain('Location: https://app.example/cb?code=[REDACTED:code:3]');
    expect(text).toContain('"access_token": "[REDACTED:access_token:1]"');
    expect(text).toContain('replay: idp-conformance run --target "$TARGET_CONFIG" --flaw code-reuse-allowed');
    expect(text).toContain('-u "$CLIENT_ID:$CLIENT_SECRET"');
    expect(text).not.toContain(SECRET);
    expect((byId('pkce.plain-rejected').failure as { type: string }).type).toBe('interop (MUST)');
    expect((byId('redirect.exact-match').failure as { type: string }).type).toBe('failed (MUST)');
  });

  it('names screenshots as attachments in system-out', () => {
    expect(String(byId('code.single-use')['system-out'])).toBe(
      '[[ATTACHMENT|screenshots/code.single-use/01-consent.png]]',
    );
  });
});

describe('report.sarif (ajv, SARIF 2.1.0 schema)', () => {
  const schema = JSON.parse(
    readFileSync(new URL('../fixtures/sarif-2.1.0-rtm.5.json', import.meta.url), 'utf8'),
  ) as object;
  // unicodeRegExp off: the schema's own "language" pattern is not valid with the u flag.
  const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  const log = JSON.parse(renderSarif(report)) as {
    version: string;
    runs: {
      tool: {
        driver: {
          rules: {
            id: string;
            helpUri?: string;
            properties: Record<string, unknown>;
            defaultConfiguration: { level?: string };
          }[];
        };
      };
      results: Record<string, unknown>[];
      properties: Record<string, unknown>;
      invocations: { toolExecutionNotifications: { level: string; message: { text: string } }[] }[];
    }[];
  };
  const run = log.runs[0]!;

  it('validates against the schema, and the validator rejects what the schema forbids', () => {
    expect(validate(log), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...log, version: '2.0.0' })).toBe(false);
    expect(validate({ ...log, runs: [{ ...run, results: [{ ...run.results[0], level: 'fatal' }] }] })).toBe(false);
    expect(validate(JSON.parse(renderSarif(bigReport(66))))).toBe(true);
  });

  it('a rule per scenario with its spec link, level and security-severity', () => {
    expect(run.tool.driver.rules.map((r) => r.id)).toEqual(report.results.map((r) => r.id));
    const rule = run.tool.driver.rules.find((r) => r.id === 'refresh.rotation')!;
    expect(rule.helpUri).toBe('https://www.rfc-editor.org/rfc/rfc6749#section-10.4');
    expect(rule.defaultConfiguration.level).toBe('warning');
    expect(rule.properties['security-severity']).toBe('5.5');
    expect(run.tool.driver.rules.find((r) => r.id === 'code.single-use')!.properties['security-severity']).toBe('9.5');
  });

  it(
    'a result per failure or warning, security first, with the deciding exchange, baseline state and ' + 'suppressions',
    () => {
      expect(run.results.map((r) => [r.ruleId, r.level, r.baselineState])).toEqual([
        ['code.single-use', 'error', 'new'],
        ['pkce.plain-rejected', 'error', 'unchanged'],
        ['redirect.exact-match', 'error', 'unchanged'],
        ['refresh.rotation', 'warning', 'updated'],
        ['code.bound-to-client', 'error', 'unchanged'],
      ]);
      const first = run.results[0] as {
        webResponse: { statusCode: number };
        properties: { curl: string };
        locations: { physicalLocation: { artifactLocation: { uri: string } } }[];
      };
      expect(first.webResponse.statusCode).toBe(200);
      // GitHub rejects an http(s) artifact URI (not the checkout's scheme): host and path, relative.
      expect(first.locations[0]!.physicalLocation.artifactLocation.uri).toBe('idp.example/token');
      expect(
        run.results
          .map((r) => (r as typeof first).locations[0]!.physicalLocation.artifactLocation.uri)
          .every((u) => !/^[a-z]+:/i.test(u)),
      ).toBe(true);
      expect(first.properties.curl).toContain('"$CLIENT_SECRET"');
      expect(run.results[4]!.suppressions).toEqual([expect.objectContaining({ kind: 'external' })]);
      expect(run.properties.plantedFlaws).toEqual(['code-reuse-allowed', 'pkce-plain-allowed']);
      const notes = run.invocations[0]!.toolExecutionNotifications;
      expect(notes.map((n) => n.level)).toEqual(['warning', 'error']);
      expect(notes[0]!.message.text).toContain('Planted flaws were on: code-reuse-allowed, pkce-plain-allowed');
      expect(renderSarif(report)).not.toContain(SECRET);
    },
  );
});

describe('report.md (markdown-it)', () => {
  const md = new MarkdownIt({ html: true, linkify: false });
  const htmlTokens = (text: string) =>
    md
      .parse(text, {})
      .flatMap((t) => [t, ...(t.children ?? [])])
      .filter((t) => t.type.startsWith('html_'));
  const links = (text: string) =>
    md
      .parse(text, {})
      .flatMap((t) => t.children ?? [])
      .filter((t) => t.type === 'link_open')
      .map((t) => String(t.attrGet('href')));

  it('renders without raw HTML even with markup in target text; links only to requirements and screenshots', () => {
    const text = renderMarkdown(report);
    expect(htmlTokens(text)).toEqual([]);
    expect(links(text).every((h) => h.startsWith('https://www.rfc-editor.org/') || h.startsWith('screenshots/'))).toBe(
      true,
    );
    expect(links(text)).toContain('screenshots/code.single-use/01-consent.png');
    const html = md.render(text);
    expect(html).not.toMatch(/<script|<a href="javascript/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    // The escape turns any text into itself: markdown-it renders it as that text.
    expect(md.renderInline(markdownText(NASTY))).toBe(
      md.utils.escapeHtml(NASTY.replace('\u0001', '⟨U+0001⟩').replace('\u202e', '⟨U+202E⟩')),
    );
  });

  it('says planted flaws were on, compares with the baseline, splits security and interop, and replays', () => {
    const text = renderMarkdown(report);
    const lines = text.split('\n');
    expect(lines.findIndex((l) => l.includes('Planted flaws were on'))).toBeLessThan(
      lines.findIndex((l) => l.startsWith('| security failures')),
    );
    expect(text).toContain('**Baseline:** compared with old/report\\.json');
    expect(text).toContain('| 1 | 1 | 1 | 1 | 1 | 1 | 2 | 1 |');
    expect(text).toContain('### FAIL code\\.single\\-use · security · severity critical · MUST');
    expect(text).toContain(
      'idp-conformance run --target "$TARGET_CONFIG" --flaw code-reuse-allowed --flaw pkce-plain-allowed --seed 42 ' +
        '--only code.single-use',
    );
    expect(text).toContain('The deciding request (answered HTTP 200, Location https\\:');
    expect(text).not.toContain(SECRET);
  });

  it("stays under GitHub's 1 MiB step-summary limit, with a note where it was cut", () => {
    const big = bigReport(40);
    const failing = Array.from({ length: 3000 }, (_, i) =>
      result(`token.fail-${i}`, 'failed', {
        failureKind: 'accepted',
        message: `failure ${i} ${'x'.repeat(400)}`,
        evidence: [{ ...decidingToken, request: { ...decidingToken.request, body: 'y'.repeat(2000) } }],
      }),
    );
    const text = renderMarkdown({ ...big, results: [...big.results, ...failing] });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_MARKDOWN_BYTES);
    expect(MAX_MARKDOWN_BYTES).toBeLessThan(1024 * 1024);
    expect(text).toMatch(
      /> \*\*Note:\*\* cut here to stay under GitHub's 1 MiB step-summary limit: \d+ more sections left out/,
    );
    expect(htmlTokens(text)).toEqual([]);
    expect(renderMarkdown(report)).not.toContain('cut here');
  });
});

describe('--baseline', () => {
  it('reads an earlier report.json leniently and sorts the changes', () => {
    const old: Report = {
      ...report,
      results: [
        result('code.single-use', 'passed'),
        result('code.happy-path', 'failed'),
        result('refresh.rotation', 'failed'),
        result('token.no-store', 'error'),
        result('gone.away', 'failed'),
      ],
    };
    const parsed = parseBaseline(JSON.stringify({ ...old, schemaVersion: 9, extra: true }), 'old.json');
    const cmp = compareWithBaseline(report, parsed, 'old.json');
    expect(cmp.newFailures.map((c) => `${c.id}:${c.from}>${c.to}`)).toEqual([
      'pkce.plain-rejected:absent>failed',
      'code.single-use:passed>failed',
      'redirect.exact-match:absent>failed',
      'code.bound-to-client:absent>failed',
    ]);
    expect(cmp.fixed.map((c) => c.id)).toEqual(['code.happy-path']);
    expect(cmp.changed.map((c) => `${c.id}:${c.from}>${c.to}`)).toEqual(['refresh.rotation:failed>warning']);
    expect(cmp).toMatchObject({ source: 'old.json', startedAt: report.startedAt, seed: 42 });
    expect(() => parseBaseline('{"results": [{"id": 1}]}', 'x.json')).toThrow(
      /x\.json is not a report\.json: results\.0\.id/,
    );
    expect(() => parseBaseline('nope', 'x.json')).toThrow(/x\.json is not JSON/);
  });

  it('the console prints the comparison, the security/interop split and the planted flaws', () => {
    let out = '';
    new ConsoleReporter({
      write: (t) => {
        out += t;
      },
      color: false,
    }).summary(report);
    expect(out).toContain('failures: 1 security, 1 interop, 1 unclassified\n');
    expect(out).toContain('!! Planted flaws were on: code-reuse-allowed, pkce-plain-allowed.');
    expect(out).toContain(
      'compared with old/report.json (run of 2026-01-01T00:00:00.000Z, seed 41): 1 new failure, 1 fixed, 1 other ' +
        'verdict changed\n',
    );
    expect(out).toContain('new failures: code.single-use (passed → failed)\n');
  });
});
