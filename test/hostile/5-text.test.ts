/** Item 5: target text is data — never terminal control, workflow commands or markup. */
import { describe, expect, it } from 'vitest';
import { consoleText, markdownText } from '../../reports/escape.ts';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { resultOf } from './run-cli.ts';

describe('item 5: a target that sends escape sequences, fake lines, workflow commands and markup', () => {
  it(
    'reaches the console as one inert line and report.md as escaped text',
    async () => {
      const { run, idp } = await attack('markup', { only: ['client-credentials.issues-token'] });
      expectContained(run, idp, 1);
      expect(resultOf(run, 'client-credentials.issues-token').status).toBe('failed');
      for (const out of [run.stdout, run.stderr]) {
        expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/);
        expect(out).not.toMatch(/^\s*::/m);
        expect(out).not.toMatch(/^\s*PASS\s+everything/m);
      }
      const md = run.files['report.md']!;
      expect(md).toContain('client-credentials.issues-token');
      expect(md).not.toMatch(/<img|<script/i);
      expect(md).not.toMatch(/!\[/);
      expect(md).not.toMatch(/(?<!\\)\]\(http:\/\/127\.0\.0\.1/);
      expect(md).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]/);
      expect(md).not.toMatch(/^\s*::/m);
      expect(run.files['report.html']).not.toMatch(/<img src="http/);
    },
    RUN_TIMEOUT_MS,
  );

  it('consoleText and markdownText', () => {
    expect(consoleText('a\x1b[31mb\nc\r\u2028d\u202ee')).toBe('a\\x1b[31mb\\nc\\r\\u2028d\\u202ee');
    expect(consoleText('  ::warning::x')).toBe('  : :warning::x');
    expect(markdownText('<img src=x> ![a](http://b) *c* | `d`\ne')).toBe(
      '&lt;img src=x&gt; \\!\\[a\\]\\(http\\://b\\) \\*c\\* \\| \\`d\\` e',
    );
  });
});
