/**
 * Several test users (the target config's `users`): the scenarios that act as a user run at once, each as a user of
 * its own and never two as one user, and the verdicts are those of the one-user run.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { GRANT, createReferenceServer, defineScenario, runConformance } from 'idp-conformance';
import { targetConfig, testUsers } from '../../reference/index.ts';

const USERS = testUsers(3);

describe('users: one lane per test user', () => {
  it('acts as every configured user, one scenario per user at a time, with the one-user verdicts', async () => {
    const server = createReferenceServer({ users: USERS });
    await server.listen(0, '127.0.0.1');
    try {
      const acting = new Map<string, number>();
      const seen: { username: string; sub: unknown }[] = [];
      let twice = 0;
      const probes = Array.from({ length: 6 }, (_, i) =>
        defineScenario({
          id: `lanes.probe-${i}`,
          title: 'a code flow as the lane user, its ID token sub recorded',
          requirements: { r: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' } },
          severity: 'info',
          requires: { roles: ['confidential'], user: true, capabilities: ['grant:authorization_code'] },
          async run(ctx) {
            const username = ctx.user?.username ?? '(none)';
            acting.set(username, (acting.get(username) ?? 0) + 1);
            if (acting.get(username)! > 1) twice++;
            try {
              const { code, request, pkce } = await ctx.flows.code('confidential', { session: 'fresh' });
              const res = await ctx.http.token(ctx.client('confidential'), {
                grant_type: GRANT.code,
                code,
                redirect_uri: request.redirect_uri,
                ...(pkce ? { code_verifier: pkce.verifier } : {}),
              });
              const idToken = res.body.id_token;
              seen.push({ username, sub: typeof idToken === 'string' ? decodeJwt(idToken).sub : undefined });
            } finally {
              acting.set(username, acting.get(username)! - 1);
            }
          },
        }),
      );
      const only = [
        'lanes.*',
        'code.happy-path',
        'prompt.none-with-session',
        'prompt.login',
        'refresh.rotation',
        'id-token.claims',
        'logout.rp-initiated',
      ];
      const one = targetConfig(server);
      const { users: _more, ...single } = one;
      expect(one.users?.map((u) => u.username)).toEqual(['alice-2', 'alice-3']);
      const alone = await runConformance({ target: single, only, seed: 5, concurrency: 4, extraScenarios: probes });
      seen.length = 0;
      const lanes = await runConformance({ target: one, only, seed: 5, concurrency: 4, extraScenarios: probes });
      const statuses = (r: typeof alone) => Object.fromEntries(r.results.map((x) => [x.id, x.status]));
      expect(statuses(lanes)).toEqual(statuses(alone));
      expect(Object.values(statuses(lanes)).every((s) => s === 'passed')).toBe(true);
      expect(twice).toBe(0);
      // Each probe signed in as its lane's user: the ID token's sub is that user's.
      const subOf = new Map(USERS.map((u) => [u.username, u.sub]));
      expect(seen).toHaveLength(6);
      for (const { username, sub } of seen) expect(sub).toBe(subOf.get(username));
      expect(new Set(seen.map((s) => s.username)).size).toBeGreaterThan(1);
    } finally {
      await server.close();
    }
  }, 240_000);
});
