/**
 * Issue 29 item 2: no credential over plain http when the issuer is https. An https hostile IdP (a certificate made
 * at test time, test/hostile/tls.ts) sends the harness to its http listener at each step that carries a secret; the
 * listener must never hear from it. The HTTP actuator's half (form and auto drivers); Chromium's is in
 * 9-https-only-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { DOWNGRADES, expectRefused } from './downgrade.ts';
import { ALL_FORMATS, resultOf } from './run-cli.ts';
import { type TestTls, makeTestTls } from './tls.ts';

let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls.dispose());

describe('issue 29 item 2: nothing secret over http for an https issuer (HTTP actuator)', () => {
  it.each(DOWNGRADES)(
    '%s: %s is an error naming the http URL and the rule (form driver)',
    async (mode, id, path) => {
      const { run, idp } = await attack(
        mode,
        { only: [id], config: { login: { driver: 'form' } }, args: ALL_FORMATS },
        { tls },
      );
      expectRefused(run, idp, id, path);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'the auto driver, the default, refuses the http form action the same way',
    async () => {
      const { run, idp } = await attack('http-form-action', { only: ['code.happy-path'], args: ALL_FORMATS }, { tls });
      expectRefused(run, idp, 'code.happy-path', '/login');
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'the same https IdP without a downgrade signs in (the fixture is sound)',
    async () => {
      const { run, idp } = await attack(
        'clean',
        { only: ['code.happy-path'], config: { login: { driver: 'form' } }, args: ALL_FORMATS },
        { tls },
      );
      expectContained(run, idp, 0);
      expect(resultOf(run, 'code.happy-path').status).toBe('passed');
      expect(idp.requests.some((q) => q.url.endsWith('/login') && q.method === 'POST')).toBe(true);
    },
    RUN_TIMEOUT_MS,
  );
});
