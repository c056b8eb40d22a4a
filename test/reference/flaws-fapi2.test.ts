/**
 * The planted flaws of the FAPI 2.0 rows of issue 45, on the reference with its FAPI settings (`serve --fapi2`):
 * fapi2-accepts-rs256 (FAPI 2.0 SP §5.4.1) and request-object-long-lived (FAPI 2.0 MS §5.3.1), probed at the PAR
 * endpoint as the second confidential client, whose seeded key is RSA (it signs PS256 and RS256 alike).
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '../../harness/config/load.ts';
import { assertionFields, clientAssertion } from '../../harness/tokens/client-assertion.ts';
import { requestObject, type RequestObjectOptions } from '../../harness/tokens/request-object.ts';
import type { FlawName } from '../../reference/index.ts';
import { SEEDED_CLIENTS } from '../../reference/options.ts';
import { SEEDED_PARTNER_PRIVATE_JWK } from '../../reference/seeded-keys.ts';
import { newVerifier, s256 } from '../support/reference-client.ts';
import { useServer } from './helpers.ts';

const PARTNER: Client = {
  role: 'confidential2',
  clientId: SEEDED_CLIENTS.confidential2.clientId,
  redirectUri: SEEDED_CLIENTS.confidential2.redirectUris[0]!,
  scope: 'openid',
  authMethod: 'private_key_jwt',
  privateJwk: { ...SEEDED_PARTNER_PRIVATE_JWK },
};

/** A sound code request of PARTNER, as the fields of a push. */
const codeRequest = (): Record<string, string> => ({
  response_type: 'code',
  client_id: PARTNER.clientId,
  redirect_uri: PARTNER.redirectUri!,
  scope: 'openid',
  state: 'pushed-state',
  code_challenge: s256(newVerifier()),
  code_challenge_method: 'S256',
});

interface Push {
  assertionAlg?: 'PS256' | 'RS256';
  object?: Omit<RequestObjectOptions, 'audience'>;
}

/** The status of a push as PARTNER and its error, if any. */
async function push(issuer: string, { assertionAlg = 'PS256', object }: Push): Promise<[number, string | null]> {
  const request = codeRequest();
  const fields: Record<string, string> = {
    ...request,
    ...assertionFields(PARTNER.clientId, clientAssertion(PARTNER, { audience: issuer, signingAlg: assertionAlg })),
    ...(object ? { request: requestObject(PARTNER, request, { audience: issuer, ...object }) } : {}),
  };
  const res = await fetch(`${issuer}/par`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const body = (await res.json()) as { error?: string };
  return [res.status, body.error ?? null];
}

type Fapi2Flaw = Extract<FlawName, 'fapi2-accepts-rs256' | 'request-object-long-lived'>;

const probes: { flaw: Fapi2Flaw; what: string; push: Push; clean: [number, string | null] }[] = [
  {
    flaw: 'fapi2-accepts-rs256',
    what: 'an RS256 client assertion',
    push: { assertionAlg: 'RS256' },
    clean: [401, 'invalid_client'],
  },
  {
    flaw: 'fapi2-accepts-rs256',
    what: 'an RS256 request object',
    push: { object: { signingAlg: 'RS256', notBeforeIn: 0 } },
    clean: [400, 'invalid_request_object'],
  },
  {
    flaw: 'request-object-long-lived',
    what: 'a request object living 90 minutes after its nbf',
    push: { object: { notBeforeIn: 0, expiresIn: 5400 } },
    clean: [400, 'invalid_request_object'],
  },
  {
    flaw: 'request-object-long-lived',
    what: 'a request object without nbf',
    push: { object: { expiresIn: 300 } },
    clean: [400, 'invalid_request_object'],
  },
];

describe('the planted flaws of FAPI 2.0 (issue 45), on the reference with its FAPI settings', () => {
  const clean = useServer({ profile: 'fapi2' });
  const flawed: Record<Fapi2Flaw, { readonly issuer: string }> = {
    'fapi2-accepts-rs256': useServer({ profile: 'fapi2', flaws: ['fapi2-accepts-rs256'] }),
    'request-object-long-lived': useServer({ profile: 'fapi2', flaws: ['request-object-long-lived'] }),
  };

  it('without flaws, PS256 assertions and request objects living 5 minutes from their nbf are taken', async () => {
    expect(await push(clean.issuer, {})).toEqual([201, null]);
    expect(await push(clean.issuer, { object: { notBeforeIn: 0, expiresIn: 300 } })).toEqual([201, null]);
  });

  it.each(probes)('$flaw: $what is refused without the flaw, taken with it', async ({ flaw, push: p, clean: c }) => {
    expect(await push(clean.issuer, p)).toEqual(c);
    expect(await push(flawed[flaw].issuer, p)).toEqual([201, null]);
  });

  it('with either flaw, what the other refuses is still refused; an nbf in the future stays refused', async () => {
    const future = { object: { notBeforeIn: 300, expiresIn: 600 } };
    expect(await push(flawed['request-object-long-lived'].issuer, future)).toEqual([400, 'invalid_request_object']);
    expect(await push(flawed['request-object-long-lived'].issuer, { assertionAlg: 'RS256' })).toEqual([
      401,
      'invalid_client',
    ]);
    const longLived = { object: { notBeforeIn: 0, expiresIn: 5400 } };
    expect(await push(flawed['fapi2-accepts-rs256'].issuer, longLived)).toEqual([400, 'invalid_request_object']);
  });
});
