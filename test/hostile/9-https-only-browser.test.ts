/**
 * Issue 29 item 2 in Chromium (the browser driver; the auto driver goes on in it): the downgrades of
 * 9-https-only.test.ts, and a login page whose script sends the typed password over plain ws:/http: by every channel
 * a page has. Chromium trusts the test certificate through a CHROMIUM_PATH wrapper (test/hostile/tls.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { DOWNGRADES, expectRefused } from './downgrade.ts';
import { ALL_FORMATS, ALL_REPORTS, resultOf } from './run-cli.ts';
import { type TestTls, makeTestTls } from './tls.ts';

let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls.dispose());

const browser = { login: { driver: 'browser' } };

describe('issue 29 item 2: nothing secret over http for an https issuer (Chromium)', () => {
  it.each(DOWNGRADES)(
    '%s: %s is an error naming the http URL and the rule',
    async (mode, id, path) => {
      const { run, idp } = await attack(mode, { only: [id], config: browser, args: ALL_FORMATS }, { tls });
      expectRefused(run, idp, id, path);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "a login page's script cannot send the password over ws: or http: (the page's CSP holds it to the origins)",
    async () => {
      const { run, idp } = await attack(
        'http-exfiltrate',
        { only: ['code.happy-path'], config: browser, args: ALL_FORMATS },
        { tls },
      );
      expectContained(run, idp, 0);
      expect(Object.keys(run.files).sort()).toEqual(ALL_REPORTS);
      expect(resultOf(run, 'code.happy-path').status).toBe('passed');
      // The WebSocket handshake, the worker's fetch, the beacon, the image and the fetch: none reached the listener.
      expect(idp.plainRequests.map((q) => `${q.method} ${q.url}`)).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
