/** Issue 29 item 2's downgrades and what a run against each must show, for both drivers' tests. */
import { expect } from 'vitest';
import { expectContained } from './common.ts';
import type { HostileIdp, Mode } from './hostile-idp.ts';
import { ALL_REPORTS, type CliRun, resultOf } from './run-cli.ts';

/** The downgrades, the scenario that meets each, and the http URL's path it must refuse. */
export const DOWNGRADES: readonly [Mode, string, string][] = [
  ['http-authorization', 'code.happy-path', '/authorize'],
  ['http-login-redirect', 'code.happy-path', '/authorize'],
  ['http-form-action', 'code.happy-path', '/login'],
  ['http-verification', 'device.approved', '/activate'],
];

/** What every downgrade run must show: refused with the URL and the rule, every report written, nothing sent. */
export function expectRefused(run: CliRun, idp: HostileIdp, id: string, path: string): void {
  expectContained(run, idp, 1);
  expect(Object.keys(run.files).sort()).toEqual(ALL_REPORTS);
  const r = resultOf(run, id);
  expect(r.status, r.message).toBe('error');
  expect(r.message).toContain(`${idp.plain}${path}`);
  expect(r.message).toMatch(/an http: URL for an https issuer .*secrets go over https only/);
  expect(idp.issuer).toMatch(/^https:/);
  // The http listener heard nothing: no page, no form post, no password.
  expect(idp.plainRequests.map((q) => `${q.method} ${q.url}`)).toEqual([]);
}
