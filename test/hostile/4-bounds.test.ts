/** Item 4: bounded resources — body size, decompressed size, JSON depth, request time, login pages. */
import { describe, expect, it } from 'vitest';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { resultOf } from './run-cli.ts';

describe('item 4: a target that answers too much, too deep or never', () => {
  it.each([
    ['huge-body', /larger than 5242880 bytes \(limits\.maxBodyBytes\)/],
    ['gzip-bomb', /larger than 5242880 bytes \(limits\.maxBodyBytes\)/],
    ['deep-json', /nests JSON deeper than 64 levels/],
    ['hang', /no response within 3000 ms/],
  ] as const)('%s: an error naming the cause, within bounded memory', async (mode, cause) => {
    const { run, idp } = await attack(mode, { only: ['client-credentials.issues-token'] });
    expectContained(run, idp, 1);
    const r = resultOf(run, 'client-credentials.issues-token');
    expect(r.status).toBe('error');
    expect(r.message).toMatch(cause);
  }, RUN_TIMEOUT_MS);

  it('the body cap is configurable (limits.maxBodyBytes)', async () => {
    const { run, idp } = await attack('huge-body', { only: ['client-credentials.issues-token'], config: { limits: { maxBodyBytes: 65_536 } } });
    expectContained(run, idp, 1);
    expect(resultOf(run, 'client-credentials.issues-token').message).toMatch(/larger than 65536 bytes \(limits\.maxBodyBytes\)/);
  }, RUN_TIMEOUT_MS);
});

// These two pass after the parse5 login parser (issue 14): linear parsing with caps on the forms
// and controls read. Run them with HOSTILE_PARSER=1 once that branch is merged.
describe('item 4: login pages that would exhaust the parser (passes after the parse5 login parser, issue 14)', () => {
  it.skipIf(process.env.HOSTILE_PARSER !== '1').each(['many-buttons', 'unclosed-tags'] as const)('%s: an error naming the page, within bounded memory', async (mode) => {
    const { run, idp } = await attack(mode, { only: ['code.happy-path'] });
    expectContained(run, idp, 1);
    expect(resultOf(run, 'code.happy-path').status).toBe('error');
  }, RUN_TIMEOUT_MS);
});
