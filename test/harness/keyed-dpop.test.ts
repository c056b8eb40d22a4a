/** The keyed role's config, its redaction, client assertions and DPoP proofs as the harness makes them. */
import {
  EmbeddedJWK,
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { configSecrets, resolveClients, validateConfig } from '../../harness/config/load.ts';
import type { ConfigError } from '../../harness/model/failures.ts';
import { clientAssertion } from '../../harness/tokens/client-assertion.ts';
import { requestObject, requestObjectAlg } from '../../harness/tokens/request-object.ts';
import { createDpopKey } from '../../harness/tokens/dpop.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { SEEDED_KEYED_PRIVATE_JWK } from '../../reference/index.ts';
import { estimateBits } from '../../suites/entropy/codes-and-tokens.ts';

const JWK = { ...SEEDED_KEYED_PRIVATE_JWK };
const keyed = { clientId: 'keyed-app', redirectUri: 'https://keyed.example.test/callback', privateJwk: JWK };
const issues = (raw: unknown): string[] => {
  try {
    validateConfig(raw, {});
    return [];
  } catch (error) {
    return (error as ConfigError).issues;
  }
};

describe('the keyed role', () => {
  it('needs a private JWK node:crypto can import, and defaults to private_key_jwt', () => {
    const config = validateConfig({ issuer: 'https://idp.example', clients: { keyed } }, {});
    expect(resolveClients(config).keyed).toMatchObject({ authMethod: 'private_key_jwt', privateJwk: JWK });
    expect(
      issues({ issuer: 'https://idp.example', clients: { keyed: { clientId: 'k', redirectUri: keyed.redirectUri } } }),
    ).toEqual([expect.stringMatching(/^clients\.keyed\.privateJwk: is required for the keyed role/)]);
    expect(
      issues({
        issuer: 'https://idp.example',
        clients: { keyed: { ...keyed, privateJwk: { kty: 'EC', crv: 'P-256', d: 'xx' } } },
      }),
    ).toEqual([expect.stringMatching(/^clients\.keyed\.privateJwk: is not a private key node:crypto can import/)]);
    const { d: _d, ...publicOnly } = JWK;
    expect(issues({ issuer: 'https://idp.example', clients: { keyed: { ...keyed, privateJwk: publicOnly } } })).toEqual(
      [expect.stringMatching(/^clients\.keyed\.privateJwk\.d: /)],
    );
  });

  it('its private members are config secrets: redacted wherever they appear', () => {
    const config = validateConfig({ issuer: 'https://idp.example', clients: { keyed } }, {});
    expect(configSecrets(config)).toEqual([{ value: JWK.d, kind: 'private_key' }]);
    const redactor = new Redactor(configSecrets(config));
    expect(redactor.text(`the key ${JWK.d} leaked`)).toBe('the key [REDACTED:private_key:1] leaked');
  });

  it(
    'signs client assertions the registered public key verifies (iss = sub = client_id, aud, ' + 'jti, short exp)',
    async () => {
      const [client] = Object.values(
        resolveClients(validateConfig({ issuer: 'https://idp.example', clients: { keyed } }, {})),
      );
      const assertion = clientAssertion(client!, { audience: 'https://idp.example' });
      const { d: _d, ...pub } = JWK;
      const { payload, protectedHeader } = await jwtVerify(assertion, createLocalJWKSet({ keys: [pub] }), {
        issuer: 'keyed-app',
        subject: 'keyed-app',
        audience: 'https://idp.example',
        algorithms: ['ES256'],
      });
      expect(protectedHeader).toMatchObject({ alg: 'ES256', kid: JWK.kid });
      expect(payload.exp! - payload.iat!).toBe(60);
      expect(payload.jti).toEqual(expect.any(String));
      expect(decodeProtectedHeader(clientAssertion(client!, { audience: 'x', alg: 'none' })).alg).toBe('none');
    },
  );
});

describe('DPoP proofs', () => {
  it.each(['ES256', 'PS256', 'EdDSA'])(
    '%s: a proof verifies with its own jwk; the thumbprint is RFC 7638',
    async (alg) => {
      const key = createDpopKey([alg]);
      const proof = key.proof('POST', 'https://idp.example/token?x=1#y', { accessToken: 'abc' });
      const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt' });
      expect(protectedHeader.alg).toBe(alg);
      expect(payload).toMatchObject({
        htm: 'POST',
        htu: 'https://idp.example/token',
        ath: 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0',
      });
      expect(key.thumbprint).toBe(await calculateJwkThumbprint(protectedHeader.jwk!, 'sha256'));
      expect(protectedHeader.jwk).not.toHaveProperty('d');
    },
  );

  it('refuses to guess when the target advertises no algorithm it can sign with', () => {
    expect(() => createDpopKey(['HS256'])).toThrow(/no DPoP algorithm/);
  });
});

describe('the entropy estimate (entropy.codes-and-tokens)', () => {
  it('counts only the characters that vary, at the bits of their alphabet', () => {
    expect(estimateBits(['ab12', 'ab34', 'ab56']).bits).toBe(8); // hex, two varying characters
    expect(estimateBits(['rt_QQQQQQQQ', 'rt_ZZZZZZZZ']).bits).toBe(40); // base32; the prefix counts nothing
    expect(estimateBits(Array.from({ length: 4 }, (_, i) => `${'x'.repeat(40)}${i}`)).bits).toBeLessThan(10);
    expect(
      estimateBits(['Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo', 'cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWpaZm9vYmFyYmE']).bits,
    ).toBeGreaterThanOrEqual(128);
  });

  it('signs request objects (RFC 9101): parameters, iss, aud, exp; each wrong one differs in one thing', async () => {
    const [client] = Object.values(
      resolveClients(validateConfig({ issuer: 'https://idp.example', clients: { keyed } }, {})),
    );
    const { d: _d, ...pub } = JWK;
    const keys = createLocalJWKSet({ keys: [pub] });
    const params = { response_type: 'code', state: 'st' };
    expect(requestObjectAlg(client!)).toBe('ES256');
    const sound = requestObject(client!, params, { audience: 'https://idp.example' });
    const { payload, protectedHeader } = await jwtVerify(sound, keys, {
      issuer: 'keyed-app',
      audience: 'https://idp.example',
      algorithms: ['ES256'],
    });
    expect(protectedHeader).toEqual({ typ: 'oauth-authz-req+jwt', kid: JWK.kid, alg: 'ES256' });
    expect(payload).toMatchObject({ ...params, exp: payload.iat! + 300 });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const foreign = requestObject(client!, params, {
      audience: 'https://idp.example',
      signWith: { ...(await exportJWK(privateKey)), kty: 'EC' },
    });
    expect(decodeProtectedHeader(foreign)).toEqual(protectedHeader);
    await expect(jwtVerify(foreign, keys)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    const expired = requestObject(client!, params, { audience: 'https://idp.example', expiresIn: -300 });
    const times = decodeJwt(expired);
    expect(times.exp! < Date.now() / 1000 && times.iat! < times.exp!).toBe(true);
    expect(decodeProtectedHeader(requestObject(client!, params, { audience: 'x', alg: 'none' })).alg).toBe('none');
  });
});
