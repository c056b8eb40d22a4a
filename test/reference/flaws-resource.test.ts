/**
 * The planted flaws of the resource endpoints and the verifier: each one, switched on alone,
 * changes exactly the behaviour it names, and the server otherwise behaves as without it.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEEDED_CLIENTS, SEEDED_USER, type FlawName } from '../../reference/index.ts';
import { algNone, FORGERY_NAMES, type ForgeryName } from '../support/forge-jwt.ts';
import {
  clientCredentialsToken,
  codeFlowTokens,
  exchange,
  introspect,
  postForm,
  revoke,
  startReference,
  userinfo,
  type RunningReference,
} from '../support/reference.ts';
import { forgeAgainst } from '../support/reference-forgeries.ts';

const servers: RunningReference[] = [];
/**
 * A server with `flaw` on. The verifier's flaws run with the default RS256 key, the one the
 * classic attacks aim at; the others with ES256, whose keys take no time to generate.
 */
async function start(flaw: FlawName): Promise<RunningReference> {
  const verifierFlaw = Object.hasOwn(ACCEPTED, flaw);
  const ref = await startReference({ flaws: [flaw], ...(verifierFlaw ? {} : { signingAlg: 'ES256' }) });
  servers.push(ref);
  return ref;
}
/** The same server without any flaw: what each flaw is compared with. */
let baseline: RunningReference;
beforeAll(async () => {
  baseline = await startReference();
  servers.push(baseline);
});
afterAll(() => Promise.all(servers.map((ref) => ref.close())));

const NONE: ForgeryName[] = ['alg none', 'alg None', 'alg NONE', 'alg nOnE'];
const HS256: ForgeryName[] = ['HS256 keyed with the PEM public key', 'HS256 keyed with the JWK JSON'];

/** The forgeries each verifier flaw lets through; every other one stays refused. */
const ACCEPTED: Record<string, ForgeryName[]> = {
  'no flaw': [],
  'alg-none-accepted': NONE,
  'hs256-key-confusion': HS256,
  'signature-unchecked': [
    ...NONE,
    ...HS256,
    'stripped signature',
    'changed payload, original signature',
    'attacker key with our kid',
    'unknown kid',
  ],
  'trusts-embedded-jwk': ['attacker key in its own jwk header'],
};

describe.each(Object.keys(ACCEPTED))('verifier: %s', (name) => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = name === 'no flaw' ? baseline : await start(name as FlawName);
  });

  it('accepts exactly its forgeries at userinfo, introspection and token exchange', async () => {
    const { tokens, forged } = await forgeAgainst(ref);
    const accepted: string[] = [];
    for (const forgery of FORGERY_NAMES) {
      const token = forged[forgery];
      const at = {
        userinfo: (await userinfo(ref, token)).status === 200,
        introspection: (await introspect(ref, token)).body.active === true,
        exchange: (await exchange(ref, token)).status === 200,
      };
      // One verifier serves all three: they agree on every token.
      expect(at, forgery).toStrictEqual({ userinfo: at.userinfo, introspection: at.userinfo, exchange: at.userinfo });
      if (at.userinfo) accepted.push(forgery);
    }
    expect(accepted).toStrictEqual(ACCEPTED[name]);
    if (name === 'signature-unchecked') {
      // The changed payload is believed: introspection reports the scope the attacker wrote.
      expect(String((await introspect(ref, forged['changed payload, original signature'])).body.scope)).toMatch(
        / api:write$/,
      );
    }
    // The genuine token still works everywhere.
    expect((await userinfo(ref, tokens.access_token)).body.sub).toBe(SEEDED_USER.sub);
    expect((await introspect(ref, tokens.access_token)).body.active).toBe(true);
    expect((await exchange(ref, tokens.access_token)).status).toBe(200);
  });
});

describe('revocation-noop', () => {
  let flawed: RunningReference;
  beforeAll(async () => {
    flawed = await start('revocation-noop');
  });

  it('answers 200 but leaves refresh and access tokens working', async () => {
    for (const [ref, revoked] of [
      [baseline, true],
      [flawed, false],
    ] as const) {
      const tokens = await codeFlowTokens(ref);
      expect((await revoke(ref, tokens.refresh_token ?? '')).status).toBe(200);
      expect((await introspect(ref, tokens.access_token)).body.active).toBe(!revoked);
      const refreshed = await postForm(
        ref.url('/token'),
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' },
        SEEDED_CLIENTS.confidential,
      );
      expect(refreshed.status).toBe(revoked ? 400 : 200);

      const other = await codeFlowTokens(ref);
      expect((await revoke(ref, other.access_token)).status).toBe(200);
      expect((await userinfo(ref, other.access_token)).status).toBe(revoked ? 401 : 200);
    }
  });

  it('still requires client authentication and ownership', async () => {
    const tokens = await codeFlowTokens(flawed);
    expect((await postForm(flawed.url('/revoke'), { token: tokens.access_token })).status).toBe(401);
    expect((await revoke(flawed, tokens.access_token, SEEDED_CLIENTS.confidential2)).status).toBe(400);
  });
});

describe('revocation-not-client-bound', () => {
  it("revokes another client's token for the caller; everything else is unchanged", async () => {
    const flawed = await start('revocation-not-client-bound');
    for (const [ref, flaw] of [
      [baseline, false],
      [flawed, true],
    ] as const) {
      const tokens = await codeFlowTokens(ref);
      expect((await revoke(ref, tokens.access_token, SEEDED_CLIENTS.confidential2)).status).toBe(flaw ? 200 : 400);
      expect((await introspect(ref, tokens.access_token)).body.active).toBe(!flaw);
      // The owner's own revocation works either way.
      const own = await codeFlowTokens(ref);
      expect((await revoke(ref, own.access_token)).status).toBe(200);
      expect((await introspect(ref, own.access_token)).body.active).toBe(false);
    }
  });
});

describe('revocation-keeps-access', () => {
  it("revokes the refresh token alone: the grant's access token stays active", async () => {
    const flawed = await start('revocation-keeps-access');
    for (const [ref, flaw] of [
      [baseline, false],
      [flawed, true],
    ] as const) {
      const tokens = await codeFlowTokens(ref);
      expect((await revoke(ref, tokens.refresh_token ?? '')).status).toBe(200);
      expect((await introspect(ref, tokens.access_token)).body.active).toBe(flaw);
      const refreshed = await postForm(
        ref.url('/token'),
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' },
        SEEDED_CLIENTS.confidential,
      );
      expect(refreshed.status).toBe(400);
    }
  });
});

describe('introspection-always-active', () => {
  it('calls any token active, believing whatever it says; everything else is unchanged', async () => {
    const flawed = await start('introspection-always-active');
    for (const [ref, flaw] of [
      [baseline, false],
      [flawed, true],
    ] as const) {
      const tokens = await codeFlowTokens(ref);
      const forged = algNone(tokens.access_token, 'none', { sub: 'admin' });
      expect((await introspect(ref, 'garbage')).body).toStrictEqual(flaw ? { active: true } : { active: false });
      expect((await introspect(ref, forged)).body).toMatchObject(
        flaw ? { active: true, sub: 'admin' } : { active: false },
      );
      expect((await introspect(ref, tokens.access_token)).body).toMatchObject({
        active: true,
        sub: SEEDED_USER.sub,
        token_type: 'Bearer',
      });
      expect((await postForm(ref.url('/introspect'), { token: tokens.access_token })).status).toBe(401);
      expect((await userinfo(ref, forged)).status).toBe(401);
    }
  });
});

describe('introspection-open', () => {
  it('answers without client authentication; answers are otherwise unchanged', async () => {
    const flawed = await start('introspection-open');
    for (const [ref, open] of [
      [baseline, false],
      [flawed, true],
    ] as const) {
      const tokens = await codeFlowTokens(ref);
      const anonymous = await postForm(ref.url('/introspect'), { token: tokens.access_token });
      expect(anonymous.status).toBe(open ? 200 : 401);
      if (open) expect(anonymous.body).toMatchObject({ active: true, sub: SEEDED_USER.sub });
      const publicClient = await introspect(ref, tokens.access_token, { clientId: SEEDED_CLIENTS.public.clientId });
      expect(publicClient.status).toBe(open ? 200 : 401);
      expect((await postForm(ref.url('/introspect'), { token: 'garbage' })).body).toStrictEqual(
        open ? { active: false } : expect.objectContaining({ error: 'invalid_client' }),
      );
      expect((await postForm(ref.url('/revoke'), { token: tokens.access_token })).status).toBe(401);
    }
  });
});

describe('exchange-upscope', () => {
  it("grants scopes beyond the subject's, still only within the client's", async () => {
    const flawed = await start('exchange-upscope');
    for (const [ref, upscope] of [
      [baseline, false],
      [flawed, true],
    ] as const) {
      const narrow = await clientCredentialsToken(ref, SEEDED_CLIENTS.exchange, 'api:read');
      const wider = await exchange(ref, narrow.access_token, { scope: 'api:read api:write' });
      expect(wider.status).toBe(upscope ? 200 : 400);
      expect(upscope ? wider.body.scope : wider.body.error).toBe(upscope ? 'api:read api:write' : 'invalid_scope');
      expect((await exchange(ref, narrow.access_token, { scope: 'openid' })).body.error).toBe('invalid_scope');
      expect((await exchange(ref, narrow.access_token, { scope: 'api:read' })).body.scope).toBe('api:read');
      expect((await exchange(ref, algNone(narrow.access_token))).body.error).toBe('invalid_request');
    }
  });
});

describe('exchange-subject-unverified', () => {
  it(
    'exchanges a forged subject for a genuine token of its choosing; garbage and other ' + 'endpoints unchanged',
    async () => {
      const flawed = await start('exchange-subject-unverified');
      for (const [ref, unverified] of [
        [baseline, false],
        [flawed, true],
      ] as const) {
        const narrow = await clientCredentialsToken(ref, SEEDED_CLIENTS.exchange, 'api:read');
        const forged = algNone(narrow.access_token, 'none', { sub: 'admin', scope: 'api:read api:write' });
        const result = await exchange(ref, forged);
        expect(result.status).toBe(unverified ? 200 : 400);
        if (unverified)
          expect(decodeJwt(String(result.body.access_token))).toMatchObject({
            sub: 'admin',
            scope: 'api:read api:write',
          });
        else expect(result.body.error).toBe('invalid_request');
        expect((await exchange(ref, 'not-a-jwt')).body.error).toBe('invalid_request');
        expect((await introspect(ref, forged)).body).toStrictEqual({ active: false });
        expect((await exchange(ref, narrow.access_token)).status).toBe(200);
      }
    },
  );
});

describe('claims-overshare at userinfo', () => {
  it('releases claims of scopes that were not granted', async () => {
    const flawed = await start('claims-overshare');
    for (const [ref, overshare] of [
      [baseline, false],
      [flawed, true],
    ] as const) {
      const tokens = await codeFlowTokens(ref, SEEDED_CLIENTS.confidential, 'openid');
      const result = await userinfo(ref, tokens.access_token);
      expect(result.status).toBe(200);
      expect(result.body).toStrictEqual(
        overshare ? { sub: SEEDED_USER.sub, ...SEEDED_USER.claims } : { sub: SEEDED_USER.sub },
      );
      expect((await userinfo(ref, algNone(tokens.access_token))).status).toBe(401);
    }
  });
});
