/** Item 2: redaction that cannot crash or leak (huge tokens, truncated bodies, short secrets). */
import { describe, expect, it } from 'vitest';
import { configSecrets, shortSecretWarnings, validateConfig } from '../../harness/config/load.ts';
import { Redactor } from '../../harness/redact/redact.ts';
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

  it('accepts secrets shorter than 8 characters with a warning that names the field, never the value', () => {
    const config = validateConfig(
      {
        issuer: 'https://idp.example',
        clients: { machine: { clientId: 'm', clientSecret: 'short' } },
        user: { username: 'dwho', password: 'dwho' },
      },
      {},
    );
    const warnings = shortSecretWarnings(config);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^clients\.machine\.clientSecret is shorter than 8 characters/);
    expect(warnings[1]).toMatch(/^user\.password is shorter than 8 characters: .*cannot be masked by value/);
    expect(warnings.join(' ')).not.toMatch(/"short"|"dwho"/);
  });

  it('masks a short secret wherever the harness puts it: form fields, JSON members, query, Basic credentials', () => {
    const config = validateConfig(
      {
        issuer: 'https://idp.example',
        clients: { machine: { clientId: 'm', clientSecret: 'sh0rt' } },
        user: { username: 'dwho', password: 'pw1' },
        login: { driver: 'form', usernameField: 'user', passwordField: 'pass' },
      },
      {},
    );
    const redactor = new Redactor(configSecrets(config));
    const form = redactor.body('user=dwho&pass=pw1&lang=en');
    expect(form).not.toMatch(/=pw1(&|$)/);
    expect(form).toContain('lang=en');
    const json = redactor.body(
      JSON.stringify({ grant_type: 'client_credentials', client_secret: 'sh0rt', pass: 'pw1' }),
    );
    expect(json).not.toMatch(/"sh0rt"|"pw1"/);
    expect(json).toContain('client_credentials');
    expect(redactor.url('https://idp.example/login?pass=pw1&x=1')).not.toContain('pw1');
    const basic = `Basic ${Buffer.from('m:sh0rt').toString('base64')}`;
    expect(redactor.headers({ authorization: basic }).authorization).toBe('Basic [REDACTED:credentials]');
  });
});
