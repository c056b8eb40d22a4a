/**
 * jarm.signed-response against the reference with its JARM responses rewritten on the way out (a middleware ahead of
 * every other): each way the response JWT can be wrong fails the scenario at its MUST, and the sound one passes.
 */
import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { Context, Next } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import { createReferenceServer, type ReferenceServer, targetConfig } from '../../reference/index.ts';
import { signCompact } from '../../reference/jws.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

type Claims = Record<string, unknown>;
interface Tamper {
  claims?: (claims: Claims) => Claims;
  /** Sign with a key that is not in the JWKS (same kid). */
  otherKey?: boolean;
  /** Put the code beside the JWT too. */
  bareCode?: boolean;
}

let server: ReferenceServer;
let tamper: Tamper | undefined;
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

async function rewrite(ctx: Context, next: Next): Promise<void> {
  await next();
  // Koa answers undefined for a header never set, whatever its type says.
  const location: unknown = ctx.response.get('Location');
  if (typeof location !== 'string') return;
  if (!tamper || !location.includes('response=')) return;
  const url = new URL(location);
  const jwt = url.searchParams.get('response')!;
  const { kid } = decodeProtectedHeader(jwt);
  const claims = (tamper.claims ?? ((c) => c))(decodeJwt(jwt));
  const key = server.context.keys.current;
  const alg = tamper.otherKey ? 'ES256' : key.alg;
  url.searchParams.set(
    'response',
    await signCompact({ alg, kid: String(kid), typ: 'JWT' }, claims, tamper.otherKey ? stranger : key.privateKey),
  );
  if (tamper.bareCode) url.searchParams.set('code', String(claims.code));
  ctx.set('Location', url.href);
}

beforeAll(async () => {
  server = createReferenceServer({ signingAlg: 'ES256' });
  server.app.middleware.unshift(rewrite);
  await server.listen(0, '127.0.0.1');
});
afterAll(() => server.close());

async function run(with_: Tamper | undefined): Promise<ScenarioResult> {
  tamper = with_;
  const report = await runConformance({
    target: targetConfig(server),
    scenarios: BUILT_IN_SCENARIOS.filter((s) => s.id === 'jarm.signed-response'),
    seed: 45,
  });
  return report.results[0]!;
}

describe('jarm.signed-response', () => {
  it('passes on the sound response (the control: its code redeems)', async () => {
    expect((await run(undefined)).status).toBe('passed');
  });

  it.each([
    ['a signature by a key not in the JWKS', { otherKey: true }, /JWKS does not verify/],
    ['another iss', { claims: (c: Claims) => ({ ...c, iss: 'https://other.example' }) }, /iss "https:\/\/other/],
    ['another aud', { claims: (c: Claims) => ({ ...c, aud: 'someone-else' }) }, /aud "someone-else"/],
    ['no exp', { claims: ({ exp: _exp, ...c }: Claims) => c }, /exp absent/],
    ['another state', { claims: (c: Claims) => ({ ...c, state: 'forged' }) }, /state not the one/],
    ['the code beside the JWT too', { bareCode: true }, /beside the response JWT/],
  ])('fails on %s (MUST)', async (_what, with_, message) => {
    const result = await run(with_);
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(message);
  });
});
