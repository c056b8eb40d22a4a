/**
 * The planted flaws of the deprecated grants, the hybrid flow and form_post (docs/catalog.md): each changes its
 * behaviour and nothing else.
 */
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe } from 'vitest';
import { LEGACY_CLIENT, SEEDED_USER } from '../../reference/index.ts';
import { WEB } from '../support/reference-client.ts';
import { flawTests } from './flaw-matrix.ts';

describe('planted flaws of the legacy grants', () => {
  flawTests([
    {
      flaw: 'password-issues-refresh',
      probe: async (idp) => {
        const result = await idp.token(
          { grant_type: 'password', username: SEEDED_USER.username, password: SEEDED_USER.password, scope: 'openid' },
          { client: LEGACY_CLIENT },
        );
        return [result.status, 'refresh_token' in result.body];
      },
      clean: [200, false],
      flawed: [200, true],
    },
    {
      flaw: 'implicit-issues-refresh',
      probe: async (idp) => {
        const { params } = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'id_token token', scope: 'openid', nonce: 'n-1' },
        });
        return [params.has('access_token'), params.has('refresh_token')];
      },
      clean: [true, false],
      flawed: [true, true],
    },
    {
      flaw: 'implicit-for-every-client',
      probe: async (idp) => {
        const { params } = await idp.authorize({
          client: WEB,
          query: { response_type: 'id_token token', scope: 'openid', nonce: 'n-1' },
        });
        return [params.get('error'), params.has('access_token')];
      },
      clean: ['unauthorized_client', false],
      flawed: [null, true],
    },
    {
      flaw: 'implicit-nonce-optional',
      probe: async (idp) => {
        const { params } = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'code id_token', scope: 'openid', nonce: undefined },
        });
        return [params.get('error'), params.has('id_token')];
      },
      clean: ['invalid_request', false],
      flawed: [null, true],
    },
    {
      flaw: 'hybrid-c-hash-missing',
      probe: async (idp) => {
        const { params } = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'code id_token', scope: 'openid', nonce: 'n-1' },
        });
        return decodeJwt(String(params.get('id_token'))).c_hash === leftHalf(String(params.get('code')));
      },
      clean: true,
      flawed: false,
    },
    {
      flaw: 'hybrid-at-hash-wrong',
      probe: async (idp) => {
        const { params } = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'code id_token token', scope: 'openid', nonce: 'n-1' },
        });
        return decodeJwt(String(params.get('id_token'))).at_hash === leftHalf(String(params.get('access_token')));
      },
      clean: true,
      flawed: false,
    },
    {
      flaw: 'hybrid-token-sub-differs',
      probe: async (idp) => {
        const { params } = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'code id_token', scope: 'openid', nonce: 'n-1' },
        });
        const redeemed = await idp.token(
          {
            grant_type: 'authorization_code',
            code: String(params.get('code')),
            redirect_uri: LEGACY_CLIENT.redirectUris[0],
          },
          { client: LEGACY_CLIENT },
        );
        const front = decodeJwt(String(params.get('id_token'))).sub;
        return [redeemed.status, decodeJwt(String(redeemed.body.id_token)).sub === front];
      },
      clean: [200, true],
      flawed: [200, false],
    },
    {
      flaw: 'form-post-in-query',
      probe: async (idp) => {
        const verifier = 'v'.repeat(43);
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const { callback, formPost } = await idp.authorize({
          client: WEB,
          query: {
            response_mode: 'form_post',
            response_type: 'code',
            code_challenge: challenge,
            code_challenge_method: 'S256',
            scope: 'openid',
          },
        });
        return [formPost?.method, formPost?.fields.has('code'), callback?.searchParams.has('code')];
      },
      clean: ['POST', true, false],
      flawed: ['POST', false, true],
    },
    {
      flaw: 'implicit-params-in-query',
      probe: async (idp) => {
        const ok = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'id_token token', scope: 'openid', nonce: 'n-1' },
        });
        const refused = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_type: 'id_token', scope: 'openid unknown-scope', nonce: 'n-1' },
        });
        return [
          ok.callback?.searchParams.has('access_token'),
          ok.callback?.hash.includes('access_token='),
          [refused.params.get('error'), refused.callback?.searchParams.has('error')],
        ];
      },
      clean: [false, true, ['invalid_scope', false]],
      flawed: [true, false, ['invalid_scope', true]],
    },
    {
      flaw: 'form-post-ignored-for-implicit',
      probe: async (idp) => {
        const implicit = await idp.authorize({
          client: LEGACY_CLIENT,
          query: { response_mode: 'form_post', response_type: 'id_token', scope: 'openid', nonce: 'n-1' },
        });
        return [implicit.formPost?.fields.has('id_token') ?? false, implicit.callback?.hash.includes('id_token=')];
      },
      clean: [true, false],
      flawed: [false, true],
    },
  ]);
});

/** at_hash and c_hash of an ES256-signed token (the flaw tests' key): the left half of its SHA-256. */
function leftHalf(value: string): string {
  return createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');
}
