import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_SCENARIOS,
  ConfigError,
  GRANT,
  checks,
  createReferenceServer,
  defineScenario,
  runConformance,
  targetConfigSchema,
} from 'idp-conformance';
import { targetConfig } from '../../reference/index.ts';

describe('the library API (import from "idp-conformance")', () => {
  it('runs the catalog plus your own scenario against a reference server and writes the reports', async () => {
    const server = createReferenceServer({ flaws: ['pkce-verifier-ignored'] });
    await server.listen(0, '127.0.0.1');
    try {
      const mine = defineScenario({
        id: 'custom.verifier-mismatch',
        title: 'A token request with a wrong code_verifier gets invalid_grant',
        requirements: { mismatch: { spec: 'RFC 7636', section: '4.6', level: 'MUST', party: 'server' } },
        severity: 'critical',
        requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code'] },
        async run(ctx) {
          const { code, request } = await ctx.flows.code('confidential');
          const res = await ctx.http.token(ctx.client('confidential'), {
            grant_type: GRANT.code,
            code,
            redirect_uri: request.redirect_uri,
            code_verifier: ctx.pkce.create().verifier,
          });
          checks.expectOAuthError(res, 'invalid_grant', {
            when: 'A token request with a wrong code_verifier',
            per: ctx.req.mismatch,
          });
        },
      });
      const reportDir = await mkdtemp(path.join(tmpdir(), 'idpc-lib-'));
      const report = await runConformance({
        target: targetConfig(server),
        extraScenarios: [mine],
        reportDir,
        formats: ['json', 'html'],
        seed: 11,
      });
      const byId = Object.fromEntries(report.results.map((r) => [r.id, r.status]));
      expect(byId).toMatchObject({
        'custom.verifier-mismatch': 'failed',
        'pkce.verifier-mismatch': 'failed',
        'code.happy-path': 'passed',
      });
      expect(report.results).toHaveLength(BUILT_IN_SCENARIOS.length + 1);
      expect((await readdir(reportDir)).sort()).toEqual(['report.html', 'report.json', 'screenshots']);
    } finally {
      await server.close();
    }
  }, 240_000); // runs the whole catalog: generous on a loaded machine

  it('throws ConfigError with the issues before any request', async () => {
    const error = await runConformance({ target: { issuer: 'not a url' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      'issuer: must be an absolute http(s) URL, e.g. "https://idp.example"',
    ]);
    expect(targetConfigSchema.safeParse({ issuer: 'https://idp.example' }).success).toBe(true);
  });
});
