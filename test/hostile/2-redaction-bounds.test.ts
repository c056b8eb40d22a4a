/** Item 2: redaction that cannot crash or leak (huge tokens, truncated bodies, short secrets). */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config.ts';
import { ConfigError } from '../../harness/failures.ts';
import { Redactor } from '../../harness/redact.ts';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { resultOf } from './run-cli.ts';

describe('item 2: redaction of huge tokens', () => {
  it(
    'learns a 40 KiB token that straddles the cut of a transcript and never prints any of it',
    async () => {
      const { run, idp } = await attack('huge-token', { only: ['client-credentials.*'] });
      expectContained(run, idp, 1);
      expect(resultOf(run, 'client-credentials.no-refresh-token').status).toBe('failed');
      expect(resultOf(run, 'client-credentials.issues-token').status).toBe('passed');
      expect(run.stderr).toBe('');
    },
    RUN_TIMEOUT_MS,
  );

  it('redacts many long secrets in linear time, without a regular expression that could be too large', () => {
    const tokens = Array.from({ length: 4 }, (_, i) => `${String(i).repeat(8)}${'A'.repeat(48 * 1024)}${i}`);
    const redactor = new Redactor();
    for (const t of tokens) redactor.add(t, 'access_token');
    const text = `before ${tokens.join(' and ')} after`;
    const out = redactor.text(text);
    for (const t of tokens) expect(out).not.toContain(t.slice(0, 64));
    expect(out).toBe(
      'before [REDACTED:access_token:1] and [REDACTED:access_token:2] and [REDACTED:access_token:3] and ' +
        '[REDACTED:access_token:4] after',
    );
  });

  it('prefers the longest secret where two overlap', () => {
    const redactor = new Redactor([
      { value: 'abcdefgh', kind: 'a' },
      { value: 'abcdefghijkl', kind: 'b' },
    ]);
    expect(redactor.text('xabcdefghijklx abcdefghz')).toBe('x[REDACTED:b:1]x [REDACTED:a:1]z');
  });

  it('refuses secrets shorter than 8 characters in the config, naming the field', () => {
    const config = {
      issuer: 'https://idp.example',
      clients: { machine: { clientId: 'm', clientSecret: 'short' } },
      user: { username: 'u', password: 'pw' },
    };
    let error: unknown;
    try {
      validateConfig(config, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toMatch(/clients\.machine\.clientSecret.*at least 8 characters/);
    expect(message).toMatch(/user\.password.*at least 8 characters/);
    expect(message).not.toContain('"short"');
    expect(message).not.toContain('"pw"');
  });
});
