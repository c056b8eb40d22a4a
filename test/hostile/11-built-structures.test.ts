/**
 * Issue 40 cause 1: an issued ID token inside a structure the harness builds. A scenario sends prompt=none with the
 * ID token as id_token_hint inside a request object the harness signs (scenarios/hint-in-request-object.ts), to a
 * target that poisons its answer to it (1,001 tiny JWTs, then the object glued to a word, its payload in plain
 * base64, the object inside a base64 blob) and to one whose ID token is 300,000 characters long. Every report
 * format, the console and stderr are decoded (decodedLeaks) and must give back no token the IdP issued.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { ALL_FORMATS, ALL_REPORTS, decodedLeaks, resultOf } from './run-cli.ts';

const SCENARIO = fileURLToPath(new URL('./scenarios/hint-in-request-object.ts', import.meta.url));

describe('issue 40 cause 1: a token inside a structure the harness built', () => {
  it.each(['poison-late', 'huge-id-token'] as const)(
    '%s: the request object carrying id_token_hint decodes to no issued token in any report',
    async (mode) => {
      const { run, idp } = await attack(mode, {
        only: ['hostile.hint-in-request-object'],
        config: { login: { driver: 'form' } },
        args: [...ALL_FORMATS, '--scenarios', path.resolve(SCENARIO)],
      });
      const r = resultOf(run, 'hostile.hint-in-request-object');
      expect(r.status, r.message).toBe('passed');
      // The ID token really went back inside a request object, and (poison-late) came back in the answer.
      const sent = idp.requests.find((q) => new URL(q.url).searchParams.has('request'));
      expect(sent, 'a request object was sent').toBeDefined();
      const idToken = idp.issued.find((t) => t.split('.').length === 3)!;
      const payload = new URL(sent!.url).searchParams.get('request')!.split('.')[1]!;
      expect(Buffer.from(payload, 'base64url').toString()).toContain(idToken);
      expectContained(run, idp, 0);
      expect(Object.keys(run.files).sort()).toEqual(ALL_REPORTS);
      expect(decodedLeaks(run, idp)).toEqual([]);
      // What the report shows instead: the object decoded, the hint masked.
      expect(run.files['report.json']).toMatch(/JWT\(header .*\\"id_token_hint\\":\\"\[REDACTED:id_token:\d+\]/);
    },
    RUN_TIMEOUT_MS,
  );
});
