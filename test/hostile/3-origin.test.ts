/** Item 3: the harness stays on the target's origin (and fetches only http(s)). */
import { describe, expect, it } from 'vitest';
import { OriginPolicy } from '../../harness/http/origin.ts';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { startHostileIdp } from './hostile-idp.ts';
import { leaks, resultOf, runCli } from './run-cli.ts';

describe('item 3: off-origin endpoints, redirects and forms', () => {
  it(
    'sends no client secret to a token endpoint on another origin: an error naming the endpoint and the rule',
    async () => {
      const { run, idp } = await attack('off-origin-token', { only: ['client-credentials.issues-token'] });
      expectContained(run, idp, 1);
      const r = resultOf(run, 'client-credentials.issues-token');
      expect(r.status).toBe('error');
      expect(r.message).toContain(`${idp.offOrigin}/token`);
      expect(r.message).toMatch(/not the issuer's origin.*allowedOrigins/);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'uses nothing from a discovery document whose issuer is another one (OIDC Discovery §4.3)',
    async () => {
      const { run, idp } = await attack('issuer-mismatch', {
        only: ['discovery.document', 'client-credentials.issues-token'],
      });
      expectContained(run, idp, 1);
      expect(resultOf(run, 'discovery.document').status).toBe('failed');
      const r = resultOf(run, 'client-credentials.issues-token');
      expect(r.status).toBe('error');
      expect(r.message).toMatch(/OIDC Discovery §4\.3/);
      expect(idp.requests.filter((q) => q.url.endsWith('/token'))).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'does not follow an authorization redirect off the origin',
    async () => {
      const { run, idp } = await attack('redirect-off-origin', { only: ['code.happy-path'] });
      expectContained(run, idp, 1);
      const r = resultOf(run, 'code.happy-path');
      expect(r.status).toBe('error');
      expect(r.message).toContain(idp.offOrigin);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'does not post the password to a login form action on another origin',
    async () => {
      const { run, idp } = await attack('form-action-off-origin', { only: ['code.happy-path'] });
      expectContained(run, idp, 1);
      expect(resultOf(run, 'code.happy-path').status).toBe('error');
      expect(resultOf(run, 'code.happy-path').message).toContain(`${idp.offOrigin}/steal`);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'fetches no file: authorization endpoint',
    async () => {
      const { run, idp } = await attack('file-authorization', { only: ['code.happy-path'] });
      expectContained(run, idp, 1);
      const r = resultOf(run, 'code.happy-path');
      expect(r.status).toBe('error');
      expect(r.message).toMatch(/file:\/\/\/etc\/hostname.*only http\(s\)/);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    'goes where allowedOrigins says: a team whose IdP spans origins lists them',
    async () => {
      const idp = await startHostileIdp('redirect-off-origin');
      try {
        const run = await runCli(idp, { only: ['code.happy-path'], config: { allowedOrigins: [idp.offOrigin] } });
        expect(run.code).toBe(1);
        expect(idp.offOriginRequests.map((r) => r.method)).toContain('GET');
        expect(leaks(run, idp)).toEqual([]);
      } finally {
        await idp.close();
      }
    },
    RUN_TIMEOUT_MS,
  );

  it("the rule: the issuer's origin and allowedOrigins, http(s) only, http only for an http issuer", () => {
    const https = new OriginPolicy({ issuer: 'https://idp.example/tenant', allowedOrigins: ['https://login.example'] });
    expect(https.problem('https://idp.example/token')).toBeUndefined();
    expect(https.problem('https://login.example/x')).toBeUndefined();
    expect(https.problem('http://idp.example/token')).toMatch(/http: .*https issuer/);
    expect(https.problem('https://evil.example/token')).toMatch(/not the issuer's origin/);
    expect(https.problem('file:///etc/passwd')).toMatch(/only http\(s\)/);
    expect(https.problem('javascript:alert(1)')).toMatch(/only http\(s\)/);
    expect(https.problem('not a url')).toMatch(/not an absolute URL/);
    const http = new OriginPolicy({ issuer: 'http://127.0.0.1:8080' });
    expect(http.problem('http://127.0.0.1:8080/a')).toBeUndefined();
    expect(http.problem('http://127.0.0.1:8081/a')).toMatch(/not the issuer's origin/);
  });
});
