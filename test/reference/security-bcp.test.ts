/**
 * The reference's PAR (RFC 9126), DPoP (RFC 9449), private_key_jwt (RFC 7523), iss (RFC 9207),
 * Referrer-Policy (RFC 9700 §4.2.4) and resource indicators (RFC 8707), request by request; every
 * malformed input gets an RFC error body, never a 500.
 */
import { describe, expect, it } from 'vitest';
import { clientAssertion } from '../../harness/tokens/client-assertion.ts';
import type { Client } from '../../harness/config/load.ts';
import { createDpopKey } from '../../harness/tokens/dpop.ts';
import { SEEDED_CLIENTS, SEEDED_KEYED_PRIVATE_JWK } from '../../reference/index.ts';
import { authUrl, browse, claimsOf, obtainCode, openLogin, pkce, SPA, useServer, WEB } from './helpers.ts';

const KEYED: Client = {
  role: 'keyed',
  clientId: SEEDED_CLIENTS.keyed.clientId,
  redirectUri: SEEDED_CLIENTS.keyed.redirectUris[0]!,
  scope: 'openid',
  authMethod: 'private_key_jwt',
  privateJwk: { ...SEEDED_KEYED_PRIVATE_JWK },
};
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

async function post(url: string, body: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, json };
}

const auth = (issuer: string, assertion = clientAssertion(KEYED, { audience: issuer })) => ({
  client_id: KEYED.clientId,
  client_assertion_type: ASSERTION_TYPE,
  client_assertion: assertion,
});

function codeRequest(): { params: Record<string, string>; verifier: string } {
  const { verifier, challenge } = pkce();
  return {
    verifier,
    params: {
      response_type: 'code',
      client_id: KEYED.clientId,
      redirect_uri: KEYED.redirectUri!,
      scope: 'openid offline_access',
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    },
  };
}

describe('the default reference', () => {
  const ctx = useServer();

  describe('private_key_jwt', () => {
    it(
      'authenticates a signed assertion; a replay, a wrong aud, alg none, an expired or overlong one, one without ' +
        'sub, before its nbf or issued a day ago get invalid_client',
      async () => {
        const body = { grant_type: 'client_credentials', scope: 'api:read' };
        const assertion = clientAssertion(KEYED, { audience: ctx.issuer });
        expect((await post(`${ctx.issuer}/token`, { ...body, ...auth(ctx.issuer, assertion) })).status).toBe(200);
        const wrong = [
          assertion,
          clientAssertion(KEYED, { audience: 'https://other.example/token' }),
          clientAssertion(KEYED, { audience: ctx.issuer, alg: 'none' }),
          clientAssertion(KEYED, { audience: ctx.issuer, expiresIn: -60 }),
          clientAssertion(KEYED, { audience: ctx.issuer, expiresIn: 3600 }),
          clientAssertion(KEYED, { audience: ctx.issuer, withoutSub: true }),
          clientAssertion(KEYED, { audience: ctx.issuer, notBeforeIn: 120, expiresIn: 300 }),
          clientAssertion(KEYED, { audience: ctx.issuer, issuedAgo: 86_400 }),
          'not.a.jwt',
        ];
        for (const a of wrong) {
          const res = await post(`${ctx.issuer}/token`, { ...body, ...auth(ctx.issuer, a) });
          expect(res.status, a.slice(0, 20)).toBe(401);
          expect(res.json.error).toBe('invalid_client');
        }
      },
    );

    it('accepts the token endpoint and the PAR endpoint as aud too (RFC 7523 §3, RFC 9126 §2)', async () => {
      for (const audience of [`${ctx.issuer}/token`, `${ctx.issuer}/par`]) {
        const res = await post(`${ctx.issuer}/token`, {
          grant_type: 'client_credentials',
          ...auth(ctx.issuer, clientAssertion(KEYED, { audience })),
        });
        expect(res.status, audience).toBe(200);
      }
    });

    it('a keyed client cannot fall back to no authentication, and an assertion cannot come with Basic', async () => {
      expect(
        (await post(`${ctx.issuer}/token`, { grant_type: 'client_credentials', client_id: KEYED.clientId })).json.error,
      ).toBe('invalid_client');
      const both = await post(
        `${ctx.issuer}/token`,
        { grant_type: 'client_credentials', ...auth(ctx.issuer) },
        { authorization: `Basic ${Buffer.from('keyed-app:x').toString('base64')}` },
      );
      expect(both.json.error).toBe('invalid_request');
    });
  });

  describe('PAR', () => {
    it('pushes (201, request_uri, expires_in), authorizes once by request_uri, and the code redeems', async () => {
      const { params, verifier } = codeRequest();
      const pushed = await post(`${ctx.issuer}/par`, { ...params, ...auth(ctx.issuer) });
      expect(pushed.status).toBe(201);
      expect(pushed.json).toEqual({
        request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/),
        expires_in: 60,
      });
      const url = authUrl(ctx.issuer, { client_id: KEYED.clientId, request_uri: String(pushed.json.request_uri) });
      const { location } = await browse(url);
      const callback = new URL(location!);
      expect(callback.searchParams.get('state')).toBe('s1');
      expect(callback.searchParams.get('iss')).toBe(ctx.issuer);
      const res = await post(`${ctx.issuer}/token`, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: KEYED.redirectUri!,
        code_verifier: verifier,
        ...auth(ctx.issuer),
      });
      expect(res.status).toBe(200);
      // Used once: the same request_uri now gets an error page, not a login.
      const again = await openLogin(url);
      expect(again.response.status).toBe(400);
      expect(again.page).toContain('invalid_request_uri');
    });

    it('a request_uri works only for the client that pushed it', async () => {
      const pushed = await post(`${ctx.issuer}/par`, { ...codeRequest().params, ...auth(ctx.issuer) });
      const other = await openLogin(
        authUrl(ctx.issuer, { client_id: WEB.clientId, request_uri: String(pushed.json.request_uri) }),
      );
      expect(other.response.status).toBe(400);
    });

    it('validates the pushed request like /auth: JSON errors, never a 500', async () => {
      const { params } = codeRequest();
      const cases: Record<string, string>[] = [
        { ...params, redirect_uri: 'https://evil.example/cb' },
        { ...params, code_challenge_method: 'plain' },
        { ...params, request_uri: 'urn:x' },
        { ...params, response_type: 'token' },
      ];
      for (const body of cases) {
        const res = await post(`${ctx.issuer}/par`, { ...body, ...auth(ctx.issuer) });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.json.error).toEqual(expect.any(String));
      }
      expect((await post(`${ctx.issuer}/par`, params)).status).toBe(401);
      // Another client's client_id with the keyed client's assertion: not that client's key.
      expect(
        (await post(`${ctx.issuer}/par`, { ...params, ...auth(ctx.issuer), client_id: WEB.clientId })).json.error,
      ).toBe('invalid_client');
      expect(
        (await post(`${ctx.issuer}/par`, { ...params, client_assertion_type: ASSERTION_TYPE, client_assertion: '%%%' }))
          .status,
      ).toBe(401);
    });

    it('discovery advertises the endpoint; PAR is not required by default', async () => {
      const d = (await (await fetch(`${ctx.issuer}/.well-known/openid-configuration`)).json()) as Record<
        string,
        unknown
      >;
      expect(d).toMatchObject({
        pushed_authorization_request_endpoint: `${ctx.issuer}/par`,
        require_pushed_authorization_requests: false,
        authorization_response_iss_parameter_supported: true,
      });
      expect(d.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
    });
  });

  describe('DPoP', () => {
    it(
      'binds the access token (token_type DPoP, cnf.jkt); userinfo takes it only in the DPoP scheme with a proof ' +
        'by that key',
      async () => {
        const key = createDpopKey();
        const got = await obtainCode(ctx.issuer, SEEDED_CLIENTS.public, { scope: 'openid offline_access' });
        const res = await post(
          `${ctx.issuer}/token`,
          {
            grant_type: 'authorization_code',
            code: got.code,
            redirect_uri: got.redirectUri,
            code_verifier: got.verifier,
            client_id: SPA.clientId,
          },
          { dpop: key.proof('POST', `${ctx.issuer}/token`) },
        );
        expect(res.json.token_type).toBe('DPoP');
        const at = String(res.json.access_token);
        expect(claimsOf(at).cnf).toEqual({ jkt: key.thumbprint });
        const userinfo = (headers: Record<string, string>) => fetch(`${ctx.issuer}/userinfo`, { headers });
        expect(
          (
            await userinfo({
              authorization: `DPoP ${at}`,
              dpop: key.proof('GET', `${ctx.issuer}/userinfo`, { accessToken: at }),
            })
          ).status,
        ).toBe(200);
        const bearer = await userinfo({ authorization: `Bearer ${at}` });
        expect(bearer.status).toBe(401);
        expect(bearer.headers.get('www-authenticate')).toMatch(/^DPoP /);
        const otherKey = await userinfo({
          authorization: `DPoP ${at}`,
          dpop: createDpopKey().proof('GET', `${ctx.issuer}/userinfo`, { accessToken: at }),
        });
        expect(otherKey.status).toBe(401);
        const noAth = await userinfo({ authorization: `DPoP ${at}`, dpop: key.proof('GET', `${ctx.issuer}/userinfo`) });
        expect(noAth.status).toBe(401);
        // The public client's refresh token is bound to the key too (RFC 9449 §5).
        const rt = String(res.json.refresh_token);
        const refresh = (headers: Record<string, string>) =>
          post(
            `${ctx.issuer}/token`,
            { grant_type: 'refresh_token', refresh_token: rt, client_id: SPA.clientId },
            headers,
          );
        expect((await refresh({})).json.error).toBe('invalid_grant');
        expect((await refresh({ dpop: createDpopKey().proof('POST', `${ctx.issuer}/token`) })).json.error).toBe(
          'invalid_grant',
        );
        expect((await refresh({ dpop: key.proof('POST', `${ctx.issuer}/token`) })).json.token_type).toBe('DPoP');
      },
    );

    it(
      "binds the code to dpop_jkt or to the key of the PAR request's DPoP header (RFC 9449 §10, §10.1): only a " +
        'proof by that key redeems it; a mismatch between the two, a bad proof or a malformed dpop_jkt is refused',
      async () => {
        const key = createDpopKey();
        const par = `${ctx.issuer}/par`;
        const token = `${ctx.issuer}/token`;
        /** A code pushed with `extra` fields and `headers`, and its redemption with the given DPoP proof (or none). */
        const pushedCode = async (extra: Record<string, string>, withProof: boolean) => {
          const { params, verifier } = codeRequest();
          const headers: Record<string, string> = withProof ? { dpop: key.proof('POST', par) } : {};
          const pushed = await post(par, { ...params, ...extra, ...auth(ctx.issuer) }, headers);
          expect(pushed.status, JSON.stringify(pushed.json)).toBe(201);
          const url = authUrl(ctx.issuer, { client_id: KEYED.clientId, request_uri: String(pushed.json.request_uri) });
          const code = new URL((await browse(url)).location!).searchParams.get('code')!;
          return (dpop?: string) =>
            post(
              token,
              {
                grant_type: 'authorization_code',
                code,
                redirect_uri: KEYED.redirectUri!,
                code_verifier: verifier,
                ...auth(ctx.issuer),
              },
              dpop ? { dpop } : {},
            );
        };
        for (const [extra, withProof] of [
          [{ dpop_jkt: key.thumbprint }, false],
          [{}, true],
          [{ dpop_jkt: key.thumbprint }, true],
        ] as const) {
          expect((await (await pushedCode(extra, withProof))()).json.error).toBe('invalid_grant');
          const other = await (await pushedCode(extra, withProof))(createDpopKey().proof('POST', token));
          expect(other.json.error).toBe('invalid_grant');
          const redeemed = await (await pushedCode(extra, withProof))(key.proof('POST', token));
          expect(redeemed.json.token_type).toBe('DPoP');
        }
        const { params } = codeRequest();
        const refused = async (extra: Record<string, string>, headers: Record<string, string>) => {
          const res = await post(par, { ...params, ...extra, ...auth(ctx.issuer) }, headers);
          return [res.status, res.json.error];
        };
        const mismatch = { dpop_jkt: createDpopKey().thumbprint };
        expect(await refused(mismatch, { dpop: key.proof('POST', par) })).toEqual([400, 'invalid_request']);
        expect(await refused({}, { dpop: key.proof('POST', token) })).toEqual([400, 'invalid_dpop_proof']);
        expect(await refused({ dpop_jkt: 'not a thumbprint' }, {})).toEqual([400, 'invalid_request']);
      },
    );

    it(
      'refuses bad proofs with invalid_dpop_proof: wrong htm or htu, stale iat, alg none, another signer, a ' +
        'replayed jti, garbage',
      async () => {
        const key = createDpopKey();
        const url = `${ctx.issuer}/token`;
        const body = { grant_type: 'client_credentials', scope: 'api:read' };
        const basicAuth = { authorization: `Basic ${Buffer.from('machine:machine-secret-0b8e3c').toString('base64')}` };
        const replayed = key.proof('POST', url);
        expect((await post(url, body, { ...basicAuth, dpop: replayed })).status).toBe(200);
        const bad = [
          key.proof('GET', url),
          key.proof('POST', `${ctx.issuer}/other`),
          key.proof('POST', url, { iatOffset: -3600 }),
          key.proof('POST', url, { alg: 'none' }),
          key.proof('POST', url, { signWith: createDpopKey() }),
          replayed,
          'garbage',
          `${replayed}, ${replayed}`,
        ];
        for (const proof of bad) {
          const res = await post(url, body, { ...basicAuth, dpop: proof });
          expect(res.status, proof.slice(0, 30)).toBe(400);
          expect(res.json.error).toBe('invalid_dpop_proof');
        }
      },
    );
  });

  describe('iss, Referrer-Policy and 303', () => {
    it(
      'success and error responses carry iss; pages carry Referrer-Policy: no-referrer; the login POST is ' +
        'answered 303',
      async () => {
        const { challenge } = pkce();
        const url = authUrl(ctx.issuer, {
          response_type: 'code',
          client_id: WEB.clientId,
          redirect_uri: WEB.redirectUri,
          scope: 'openid',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        const login = await openLogin(url);
        expect(login.response.headers.get('referrer-policy')).toBe('no-referrer');
        const { location, statuses } = await browse(url);
        expect(statuses).toEqual([200, 303]);
        expect(new URL(location!).searchParams.get('iss')).toBe(ctx.issuer);
        const error = await fetch(
          authUrl(ctx.issuer, { response_type: 'bogus', client_id: WEB.clientId, redirect_uri: WEB.redirectUri }),
          { redirect: 'manual' },
        );
        const errorLocation = new URL(error.headers.get('location')!);
        expect(errorLocation.searchParams.get('error')).toBe('unsupported_response_type');
        expect(errorLocation.searchParams.get('iss')).toBe(ctx.issuer);
      },
    );
  });

  describe('resource indicators', () => {
    it("a known resource becomes the token's only aud; an unknown or malformed one gets invalid_target", async () => {
      const basicAuth = { authorization: `Basic ${Buffer.from('machine:machine-secret-0b8e3c').toString('base64')}` };
      const ok = await post(
        `${ctx.issuer}/token`,
        { grant_type: 'client_credentials', resource: 'https://api.example.test' },
        basicAuth,
      );
      expect(claimsOf(ok.json.access_token).aud).toBe('https://api.example.test');
      for (const resource of ['https://unknown.example', 'not a uri', 'https://api.example.test#frag']) {
        const res = await post(`${ctx.issuer}/token`, { grant_type: 'client_credentials', resource }, basicAuth);
        expect(res.status, resource).toBe(400);
        expect(res.json.error).toBe('invalid_target');
      }
      // A token for another resource is not for userinfo.
      const got = await obtainCode(ctx.issuer, SEEDED_CLIENTS.confidential);
      const tokens = await post(
        `${ctx.issuer}/token`,
        {
          grant_type: 'authorization_code',
          code: got.code,
          redirect_uri: got.redirectUri,
          code_verifier: got.verifier,
          resource: 'https://api.example.test',
        },
        { authorization: `Basic ${Buffer.from(`${WEB.clientId}:${WEB.clientSecret}`).toString('base64')}` },
      );
      const info = await fetch(`${ctx.issuer}/userinfo`, {
        headers: { authorization: `Bearer ${String(tokens.json.access_token)}` },
      });
      expect(info.status).toBe(401);
    });
  });
});

describe('client-assertion-times-unchecked', () => {
  const ctx = useServer({ flaws: ['client-assertion-times-unchecked'] });
  it('takes an assertion without sub, before its nbf or issued a day ago; still refuses an expired one', async () => {
    const body = { grant_type: 'client_credentials', scope: 'api:read' };
    for (const assertion of [
      clientAssertion(KEYED, { audience: ctx.issuer, withoutSub: true }),
      clientAssertion(KEYED, { audience: ctx.issuer, notBeforeIn: 120, expiresIn: 300 }),
      clientAssertion(KEYED, { audience: ctx.issuer, issuedAgo: 86_400 }),
    ]) {
      expect((await post(`${ctx.issuer}/token`, { ...body, ...auth(ctx.issuer, assertion) })).status).toBe(200);
    }
    const expired = clientAssertion(KEYED, { audience: ctx.issuer, expiresIn: -60 });
    expect((await post(`${ctx.issuer}/token`, { ...body, ...auth(ctx.issuer, expired) })).status).toBe(401);
  });
});

describe('the reference with its FAPI 2.0 settings', () => {
  const ctx = useServer({ profile: 'fapi2' });

  it(
    'refuses plain authorization requests, secret-based client authentication, token requests without DPoP, and an ' +
      'aud other than the issuer',
    async () => {
      const plain = await openLogin(authUrl(ctx.issuer, codeRequest().params));
      expect(plain.response.status).toBe(400);
      const secret = await post(
        `${ctx.issuer}/token`,
        { grant_type: 'client_credentials' },
        { authorization: `Basic ${Buffer.from('machine:machine-secret-0b8e3c').toString('base64')}` },
      );
      expect(secret.json.error).toBe('invalid_client');
      const noProof = await post(`${ctx.issuer}/token`, { grant_type: 'client_credentials', ...auth(ctx.issuer) });
      expect(noProof.json.error).toBe('invalid_dpop_proof');
      const tokenAud = await post(
        `${ctx.issuer}/token`,
        {
          grant_type: 'client_credentials',
          ...auth(ctx.issuer, clientAssertion(KEYED, { audience: `${ctx.issuer}/token` })),
        },
        { dpop: createDpopKey().proof('POST', `${ctx.issuer}/token`) },
      );
      expect(tokenAud.json.error).toBe('invalid_client');
      const ok = await post(
        `${ctx.issuer}/token`,
        { grant_type: 'client_credentials', ...auth(ctx.issuer) },
        { dpop: createDpopKey().proof('POST', `${ctx.issuer}/token`) },
      );
      expect(ok.json.token_type).toBe('DPoP');
      const d = (await (await fetch(`${ctx.issuer}/.well-known/openid-configuration`)).json()) as Record<
        string,
        unknown
      >;
      expect(d).toMatchObject({
        require_pushed_authorization_requests: true,
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
      });
    },
  );
});
