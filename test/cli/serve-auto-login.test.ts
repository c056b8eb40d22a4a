/** `idp-conformance serve --auto-login USER`: loud in the output, and GET /auth answers with a code. */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS } from '../../reference/index.ts';
import { spawnCli, waitFor } from '../support/spawn-cli.ts';

describe('idp-conformance serve --auto-login', () => {
  it('warns loudly and signs the user in without the login page', async () => {
    const proc = spawnCli(['serve', '--port', '0', '--auto-login', 'alice']);
    try {
      await waitFor(proc.output, 'Press Ctrl+C to stop.', 30_000);
      expect(proc.output()).toContain('WARNING: AUTO-LOGIN IS ON (--auto-login alice)');
      const issuer = /issuer\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(proc.output())?.[1];
      const client = SEEDED_CLIENTS.confidential;
      const verifier = randomBytes(32).toString('base64url');
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUris[0]!,
        scope: 'openid',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      });
      const response = await fetch(`${issuer}/auth?${query}`, { redirect: 'manual' });
      expect(response.status).toBe(303);
      expect(new URL(response.headers.get('location')!).searchParams.get('code')).toEqual(expect.any(String));
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 60_000);

  it('refuses an unknown user (exit 2)', async () => {
    const proc = spawnCli(['serve', '--port', '0', '--auto-login', 'nobody']);
    expect(await proc.exited).toBe(2);
    expect(proc.output()).toContain('autoLogin: no user "nobody"');
  }, 60_000);
});
