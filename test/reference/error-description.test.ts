/**
 * Regression (found by the endpoint fuzz, test/reference/fuzz.test.ts): error_description held `"`,
 * `§` and `–`, and echoed request values verbatim. RFC 6749 §4.1.2.1 and §5.2 allow only
 * %x20-21 / %x23-5B / %x5D-7E.
 */
import { describe, expect, it } from 'vitest';
import { OAuthError, errorDescription } from '../../reference/oauth-error.ts';
import { MACHINE, useServer } from './helpers.ts';

const RFC_6749_DESCRIPTION = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;
const ctx = useServer();
const basic = `Basic ${Buffer.from(`${MACHINE.clientId}:${MACHINE.clientSecret}`).toString('base64')}`;

async function tokenError(body: string): Promise<{ error: string; error_description: string }> {
  const res = await fetch(`${ctx.issuer}/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  expect(res.status).toBe(400);
  return (await res.json()) as { error: string; error_description: string };
}

describe('error_description stays within the RFC 6749 §5.2 character set', () => {
  it('for descriptions that quote request values', async () => {
    const cases = [
      'grant_type=%22x%5C%C3%A9', // grant_type "x\é
      'grant_type=client_credentials&grant_type=client_credentials',
      `grant_type=client_credentials&${encodeURIComponent('sc"o\\pe§')}=1&${encodeURIComponent('sc"o\\pe§')}=2`,
      'grant_type=client_credentials&scope=a%22b',
    ];
    for (const body of cases) {
      const { error_description: description } = await tokenError(body);
      expect(description, body).toMatch(RFC_6749_DESCRIPTION);
    }
  });

  it('for every description the error factory makes', () => {
    expect(errorDescription('code_verifier must be 43–128 characters (RFC 7636 §4.1): "x\\y" é\n')).toBe(
      "code_verifier must be 43-128 characters (RFC 7636 section 4.1): 'x/y' ??",
    );
    expect(
      new OAuthError('invalid_request', 'parameter "a" is included more than once').toJSON().error_description,
    ).toBe("parameter 'a' is included more than once");
  });
});
