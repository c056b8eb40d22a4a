/**
 * Every token the server is handed is verified against its own keys under an algorithm
 * allow-list (RFC 8725 §2.1, §3.1, §3.10; SPEC authentication 6). Each forgery is refused for
 * its own reason by the verifier, and at userinfo (401 invalid_token), introspection
 * ({"active": false} only) and token exchange (invalid_request).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Flaws, type FlawName } from '../../reference/index.ts';
import { InvalidTokenError, verifyPresentedAccessToken, type VerifierContext } from '../../reference/verify.ts';
import { attacker, FORGERIES, FORGERY_NAMES } from '../support/forge-jwt.ts';
import { exchange, introspect, startReference, userinfo, type RunningReference } from '../support/reference.ts';
import { forgeAgainst, type ForgeryFixture } from '../support/reference-forgeries.ts';

let ref: RunningReference;
let fixture: ForgeryFixture;

beforeAll(async () => {
  ref = await startReference();
  fixture = await forgeAgainst(ref);
});
afterAll(() => ref?.close());

describe('a genuine access token', () => {
  it('is accepted by the verifier, userinfo, introspection and token exchange', async () => {
    const token = fixture.tokens.access_token;
    const { claims } = await verifyPresentedAccessToken(ref.server.context, token);
    expect(claims.client_id).toBe('web-app');
    expect((await userinfo(ref, token)).status).toBe(200);
    expect((await introspect(ref, token)).body.active).toBe(true);
    expect((await exchange(ref, token, { scope: 'api:read' })).status).toBe(200);
  });

  it('is refused once revoked, and revoking it leaves other tokens alone', async () => {
    const { context } = ref.server;
    const other = (await forgeAgainst(ref)).tokens.access_token;
    const { claims } = await verifyPresentedAccessToken(context, other);
    await context.store.revokeAccessToken(claims.jti);
    await expect(verifyPresentedAccessToken(context, other)).rejects.toMatchObject({ reason: 'revoked' });
    await expect(verifyPresentedAccessToken(context, fixture.tokens.access_token)).resolves.toBeDefined();
  });
});

describe.each(FORGERY_NAMES)('a forged token: %s', (name) => {
  const token = () => fixture.forged[name];

  it(`is refused by the verifier as ${FORGERIES[name]}`, async () => {
    const refused = await verifyPresentedAccessToken(ref.server.context, token()).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(InvalidTokenError);
    expect((refused as InvalidTokenError).reason).toBe(FORGERIES[name]);
  });

  it('gets 401 invalid_token with a Bearer challenge at userinfo', async () => {
    const result = await userinfo(ref, token());
    expect(result.status).toBe(401);
    expect(result.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="[^"]+", error="invalid_token", error_description="[^"]*"$/,
    );
    expect(result.body.error).toBe('invalid_token');
    expect(result.body).not.toHaveProperty('sub');
  });

  it('is {"active": false} and nothing else at introspection', async () => {
    const result = await introspect(ref, token());
    expect(result.status).toBe(200);
    expect(result.body).toStrictEqual({ active: false });
  });

  it('gets invalid_request as a token exchange subject', async () => {
    const result = await exchange(ref, token());
    expect(result.status).toBe(400);
    expect(result.body.error).toBe('invalid_request');
    expect(result.body).not.toHaveProperty('access_token');
  });
});

describe('any input at all', () => {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = fc.record(
    {
      alg: fc.oneof(fc.constantFrom('none', 'None', 'HS256', 'RS256', 'ES256', 'PS256', 'EdDSA'), fc.jsonValue()),
      typ: fc.oneof(fc.constant('at+jwt'), fc.jsonValue()),
      kid: fc.oneof(fc.constant('attacker-key'), fc.jsonValue()),
      jwk: fc.oneof(fc.constant(attacker().publicJwk), fc.jsonValue()),
      crit: fc.jsonValue(),
      b64: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  const jwtLike = fc
    .tuple(fc.oneof(header, fc.jsonValue()), fc.jsonValue(), fc.string())
    .map(([h, p, signature]) => `${part(h)}.${part(p)}.${signature}`);
  const anything = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), jwtLike);

  it.each<FlawName | 'no flaw'>([
    'no flaw',
    'alg-none-accepted',
    'hs256-key-confusion',
    'signature-unchecked',
    'trusts-embedded-jwk',
  ])('is refused with an InvalidTokenError, never another error (%s)', async (flaw) => {
    const { context } = ref.server;
    const verifier: VerifierContext = {
      issuer: context.issuer,
      keys: context.keys,
      store: context.store,
      now: context.now,
      flaws: new Flaws(flaw === 'no flaw' ? [] : [flaw]),
    };
    await fc.assert(
      fc.asyncProperty(anything, async (token) => {
        const outcome = await verifyPresentedAccessToken(verifier, token).then(
          () => 'accepted',
          (err: unknown) => err,
        );
        expect(outcome).toBeInstanceOf(InvalidTokenError);
      }),
      { numRuns: 150 },
    );
  });
});
