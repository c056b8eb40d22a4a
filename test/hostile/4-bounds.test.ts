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
  ] as const)(
    '%s: an error naming the cause, within bounded memory',
    async (mode, cause) => {
      const { run, idp } = await attack(mode, { only: ['client-credentials.issues-token'] });
      expectContained(run, idp, 1);
      const r = resultOf(run, 'client-credentials.issues-token');
      expect(r.status).toBe('error');
      expect(r.message).toMatch(cause);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'the body cap is configurable (limits.maxBodyBytes)',
    async () => {
      const { run, idp } = await attack('huge-body', {
        only: ['client-credentials.issues-token'],
        config: { limits: { maxBodyBytes: 65_536 } },
      });
      expectContained(run, idp, 1);
      expect(resultOf(run, 'client-credentials.issues-token').message).toMatch(
        /larger than 65536 bytes \(limits\.maxBodyBytes\)/,
      );
    },
    RUN_TIMEOUT_MS,
  );
});

// The form login reader caps the control tags it reads (harness/login/html.ts, MAX_CONTROL_TAGS);
// the parse5 login parser (issue 14) must keep these passing: linear parsing, caps on forms and
// controls, and a login that errors as set-up rather than hanging or exhausting the heap.
describe('item 4: login pages that would exhaust the login form reader', () => {
  it.each(['many-buttons', 'unclosed-tags'] as const)(
    '%s: an error, within bounded memory and without blocking the scenario timeout',
    async (mode) => {
      // A scenario that needs the login only as set-up: it errors (and the run is not a verdict).
      const { run, idp } = await attack(mode, { only: ['code.single-use'] });
      expectContained(run, idp, 1);
      expect(resultOf(run, 'code.single-use').status).toBe('error');
      expect(run.stdout).toContain('not a verdict');
    },
    RUN_TIMEOUT_MS,
  );
});
