/** Item 7: Chromium keeps its sandbox unless root, and loads nothing off the allowed origins or outside http(s). */
import { describe, expect, it } from 'vitest';
import { chromiumArgs } from '../../harness/login/chromium.ts';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { resultOf } from './run-cli.ts';

const browser = { login: { driver: 'browser' } };

describe('item 7: the browser against a hostile IdP', () => {
  it('--no-sandbox only as root', () => {
    expect(chromiumArgs(0)).toContain('--no-sandbox');
    expect(chromiumArgs(1000)).not.toContain('--no-sandbox');
  });

  it(
    "blocks a login page's requests to another origin and still logs in",
    async () => {
      const { run, idp } = await attack('offsite-assets', { only: ['code.happy-path'], config: browser });
      expectContained(run, idp, 0);
      expect(resultOf(run, 'code.happy-path').status).toBe('passed');
    },
    RUN_TIMEOUT_MS,
  );

  it.each([
    ['file-authorization', 'code.happy-path', 'authorization endpoint'],
    ['file-verification', 'device.approved', 'verification_uri'],
  ] as const)(
    '%s: never opens a file: URL (%s, the %s)',
    async (mode, id, _what) => {
      const { run, idp } = await attack(mode, { only: [id], config: browser });
      expectContained(run, idp, 1);
      const r = resultOf(run, id);
      expect(r.status).toBe('error');
      expect(r.message).toMatch(/file:\/\/\/etc\/hostname.*only http\(s\)/);
      expect(run.screenshots).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});
