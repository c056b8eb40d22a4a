/**
 * The planted flaws of the attacks other testing tools make (issue 45): the HTTP method of the token and PAR
 * endpoints, client credentials in the request URI, a parameter included twice at /auth and /par, and a code bound
 * to a DPoP key by dpop_jkt (RFC 9449 §10) redeemed with another key's proof.
 */
import { describe } from 'vitest';
import { createDpopKey } from '../../harness/tokens/dpop.ts';
import { MACHINE, newVerifier, s256, WEB, type ReferenceClient } from '../support/reference-client.ts';
import { flawTests } from './flaw-matrix.ts';

const basic = (client: { clientId: string; clientSecret?: string }) =>
  `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret ?? ''}`).toString('base64')}`;

/** A sound code request of WEB, as the fields of /auth or /par. */
const codeRequest = (): Record<string, string> => ({
  response_type: 'code',
  client_id: WEB.clientId,
  redirect_uri: WEB.redirectUris[0]!,
  scope: 'openid',
  state: 'first-state',
  code_challenge: s256(newVerifier()),
  code_challenge_method: 'S256',
});

/** The request's fields with state a second time, another value. */
const stateTwice = (): URLSearchParams => {
  const fields = new URLSearchParams(codeRequest());
  fields.append('state', 'second-state');
  return fields;
};

/** The status of a request to `path` and, when it has one, its error (a JSON body, or the redirect's query). */
async function answer(idp: ReferenceClient, path: string, init: RequestInit = {}): Promise<[number, string | null]> {
  const res = await fetch(new URL(path, `${idp.issuer}/`), { redirect: 'manual', ...init });
  const location = res.headers.get('location');
  if (location) return [res.status, new URL(location).searchParams.get('error')];
  const text = await res.text();
  const error = /^\{/.test(text) ? (JSON.parse(text) as { error?: string }).error : undefined;
  return [res.status, error ?? null];
}

/**
 * A code of WEB asked with dpop_jkt naming one key, at /auth and pushed to /par (RFC 9449 §10, §10.1), redeemed with
 * a proof by another key: each answer's status and its error or token_type.
 */
async function redeemedByAnotherKey(idp: ReferenceClient): Promise<[number, unknown][]> {
  const bound = createDpopKey();
  const answers: [number, unknown][] = [];
  for (const pushed of [false, true]) {
    const verifier = newVerifier();
    const fields = { ...codeRequest(), code_challenge: s256(verifier), dpop_jkt: bound.thumbprint };
    let query: Record<string, string> = fields;
    if (pushed) {
      const res = await fetch(`${idp.issuer}/par`, {
        method: 'POST',
        headers: { authorization: basic(WEB), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
      const { request_uri: requestUri } = (await res.json()) as { request_uri: string };
      query = { client_id: WEB.clientId, request_uri: requestUri };
    }
    const code = (await idp.authorize({ client: WEB, query })).params.get('code') ?? '';
    const dpop = createDpopKey().proof('POST', `${idp.issuer}/token`);
    const res = await fetch(`${idp.issuer}/token`, {
      method: 'POST',
      headers: { authorization: basic(WEB), 'content-type': 'application/x-www-form-urlencoded', dpop },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB.redirectUris[0]!,
        code_verifier: verifier,
      }).toString(),
    });
    const body = (await res.json()) as { error?: string; token_type?: string };
    answers.push([res.status, body.error ?? body.token_type]);
  }
  return answers;
}

describe('planted flaws of the attacks other tools make', () => {
  flawTests([
    {
      flaw: 'token-accepts-get',
      probe: (idp) =>
        answer(idp, 'token?grant_type=client_credentials', { headers: { authorization: basic(MACHINE) } }),
      clean: [405, 'invalid_request'],
      flawed: [200, null],
    },
    {
      flaw: 'client-secret-in-query-accepted',
      probe: (idp) =>
        answer(
          idp,
          `token?${new URLSearchParams({ client_id: MACHINE.clientId, client_secret: MACHINE.clientSecret! })}`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials',
          },
        ),
      clean: [400, 'invalid_request'],
      flawed: [200, null],
    },
    {
      flaw: 'authorize-duplicate-params-accepted',
      // The flawed server shows its login page: the request goes on with the first state.
      probe: (idp) => answer(idp, `auth?${stateTwice()}`),
      clean: [303, 'invalid_request'],
      flawed: [200, null],
    },
    {
      flaw: 'par-accepts-get',
      probe: (idp) =>
        answer(idp, `par?${new URLSearchParams(codeRequest())}`, { headers: { authorization: basic(WEB) } }),
      clean: [405, 'invalid_request'],
      flawed: [201, null],
    },
    {
      flaw: 'par-duplicate-params-accepted',
      probe: (idp) =>
        answer(idp, 'par', {
          method: 'POST',
          headers: { authorization: basic(WEB), 'content-type': 'application/x-www-form-urlencoded' },
          body: stateTwice().toString(),
        }),
      clean: [400, 'invalid_request'],
      flawed: [201, null],
    },
    {
      flaw: 'dpop-jkt-unchecked',
      probe: redeemedByAnotherKey,
      clean: [
        [400, 'invalid_grant'],
        [400, 'invalid_grant'],
      ],
      flawed: [
        [200, 'DPoP'],
        [200, 'DPoP'],
      ],
    },
  ]);
});
