/**
 * JARM on the reference (JWT Secured Authorization Response Mode): response_mode=jwt answers with one JWT, the
 * `response` parameter, signed by the server's key, with iss, aud and exp beside the code and state; the planted flaw
 * jarm-unsigned sends it with alg none.
 */
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_CLIENT } from '../../reference/index.ts';
import { newVerifier, type ReferenceClient, s256, startReference, WEB } from '../support/reference-client.ts';
import { flawTests } from './flaw-matrix.ts';
import { registerCodeClient, useServer } from './helpers.ts';

/** A JARM code request of WEB: the authorization response's parameters. */
async function jarmCode(issuer: string, mode: string, state = 'jarm-state'): Promise<URLSearchParams> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: WEB.clientId,
    redirect_uri: WEB.redirectUris[0]!,
    scope: 'openid',
    state,
    response_mode: mode,
    code_challenge: s256(newVerifier()),
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${issuer}/auth?${query}`, { redirect: 'manual' });
  const location = res.headers.get('location');
  return location === null ? new URLSearchParams() : new URL(location).searchParams;
}

describe('JARM on the reference', () => {
  const idp = useServer();

  it('advertises the JWT response modes and the alg it signs them with', async () => {
    const meta = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta.response_modes_supported).toEqual(expect.arrayContaining(['jwt', 'query.jwt', 'form_post.jwt']));
    expect(meta.authorization_signing_alg_values_supported).toEqual(['RS256']);
  });

  it('redirects an error as a signed JWT in the query (response_mode=jwt, code)', async () => {
    const params = await jarmCode(idp.issuer, 'jwt', 'err-state');
    // No login here: the request is sound, so the first answer is the login page, not a redirect.
    expect(params.get('response')).toBeNull();
    const refused = await fetch(
      `${idp.issuer}/auth?${new URLSearchParams({
        response_type: 'code',
        client_id: WEB.clientId,
        redirect_uri: WEB.redirectUris[0]!,
        scope: 'openid',
        state: 'err-state',
        response_mode: 'jwt',
        prompt: 'none',
      })}`,
      { redirect: 'manual' },
    );
    const url = new URL(refused.headers.get('location')!);
    expect([...url.searchParams.keys()]).toEqual(['response']);
    const jwt = url.searchParams.get('response')!;
    const jwks = (await (await fetch(`${idp.issuer}/jwks`)).json()) as JSONWebKeySet;
    const { payload } = await compactVerify(jwt, createLocalJWKSet(jwks));
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    expect(claims).toMatchObject({ iss: idp.issuer, aud: WEB.clientId, state: 'err-state', error: 'login_required' });
    expect(typeof claims.exp).toBe('number');
  });

  it('refuses an unknown response_mode as before', async () => {
    const params = await jarmCode(idp.issuer, 'query.jwe');
    expect(params.get('error')).toBe('invalid_request');
  });
});

describe('the alg a registered client asks for (JARM §3 authorization_signed_response_alg)', () => {
  const idp = useServer({ variants: ['signing-es256'], registration: true });

  /** The alg of a JARM error response (prompt=none: login_required, no login) to a client registered with `alg`. */
  async function responseAlg(alg?: string): Promise<string | undefined> {
    const res = await registerCodeClient(
      idp.issuer,
      alg === undefined ? {} : { authorization_signed_response_alg: alg },
    );
    const { client_id: clientId } = (await res.json()) as { client_id: string };
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'https://rp.example.test/cb',
      scope: 'openid',
      prompt: 'none',
      response_mode: 'jwt',
    });
    const answer = await fetch(`${idp.issuer}/auth?${query}`, { redirect: 'manual' });
    const jwt = new URL(answer.headers.get('location')!).searchParams.get('response')!;
    return decodeProtectedHeader(jwt).alg;
  }

  it('signs with the registered alg, RS256 (the default) when it named none; advertises both', async () => {
    const meta = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(meta.authorization_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    expect(await responseAlg()).toBe('RS256');
    expect(await responseAlg('ES256')).toBe('ES256');
  });
});

describe('JARM delivery by the other modes', () => {
  let idp: ReferenceClient;
  beforeAll(async () => {
    idp = await startReference({ legacyClient: true });
  });
  afterAll(() => idp.close());

  it('form_post.jwt: a form POSTed to the redirect URI with the response field alone', async () => {
    const result = await idp.authorize({ client: WEB, query: { ...jarmQuery(), response_mode: 'form_post.jwt' } });
    expect([...result.params.keys()]).toEqual(['response']);
    expect(decodeJwt(result.params.get('response')!)).toMatchObject({ aud: WEB.clientId, state: 'st-j' });
  });

  it('jwt with a hybrid response type: fragment.jwt, the ID token inside the JWT', async () => {
    const result = await idp.authorize({
      client: LEGACY_CLIENT,
      query: { response_type: 'code id_token', scope: 'openid', nonce: 'n-1', state: 'st-h', response_mode: 'jwt' },
    });
    expect(result.callback?.hash).toMatch(/^#response=/);
    const claims = decodeJwt(result.params.get('response')!);
    expect(claims).toMatchObject({ aud: LEGACY_CLIENT.clientId, state: 'st-h' });
    expect(typeof claims.code).toBe('string');
    expect(typeof claims.id_token).toBe('string');
  });

  it('query.jwt is refused for a response type with a token (JARM §2.3.1), in the fragment', async () => {
    const result = await idp.authorize({
      client: LEGACY_CLIENT,
      query: { response_type: 'id_token', scope: 'openid', nonce: 'n-2', state: 'st-q', response_mode: 'query.jwt' },
    });
    expect(result.callback?.hash).toMatch(/error=invalid_request/);
  });
});

describe('planted flaw jarm-unsigned', () => {
  flawTests([
    {
      flaw: 'jarm-unsigned',
      probe: async (idp) => {
        const { result } = await idp
          .authorizeCode(WEB, { response_mode: 'query.jwt', state: 'st-j' })
          .catch(async () => ({ result: await idp.authorize({ client: WEB, query: jarmQuery() }) }));
        const jwt = result.params.get('response');
        if (jwt === null) return 'no response parameter';
        const claims = decodeJwt(jwt);
        const { alg } = decodeProtectedHeader(jwt);
        return { alg: alg === 'none' ? 'none' : 'a signing alg', state: claims.state, code: typeof claims.code };
      },
      clean: { alg: 'a signing alg', state: 'st-j', code: 'string' },
      flawed: { alg: 'none', state: 'st-j', code: 'string' },
    },
  ]);
});

const jarmQuery = () => ({
  response_type: 'code',
  scope: 'openid',
  state: 'st-j',
  response_mode: 'query.jwt',
  code_challenge: s256(newVerifier()),
  code_challenge_method: 'S256',
});
