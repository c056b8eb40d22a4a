/**
 * The planted flaws of the attacks other testing tools make (issue 45): the HTTP method of the token and PAR
 * endpoints, client credentials in the request URI, and a parameter included twice at /auth and /par.
 */
import { describe } from 'vitest';
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
  ]);
});
