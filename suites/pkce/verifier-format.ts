import fc from 'fast-check';
import { invalidVerifier, s256Challenge } from '../../generators/index.ts';
import { GRANT, defineScenario } from '../../harness/scenario/scenario.ts';
import { expectOAuthError, expectRefusalIsFor } from '../checks/index.ts';

export default defineScenario({
  id: 'pkce.verifier-format',
  title:
    'A code_verifier outside 43–128 unreserved characters is rejected, even when its S256 matches the code_challenge',
  requirements: {
    // RFC 7636 §4.1 defines how the client creates the verifier (43–128 unreserved characters); no
    // sentence of RFC 7636, RFC 6749 or RFC 9700 obliges the server to refuse one made otherwise,
    // and the SPEC says only that the client generates it. So nothing binds the server: the scenario
    // is skipped in every profile and claims no planted flaw (pkce-verifier-format-unchecked is
    // listed in the matrix as a flaw that breaks no server requirement).
    rfc7636_4_1: {
      spec: 'RFC 7636',
      section: '4.1',
      level: 'MUST',
      party: 'client',
      note: 'the client creates a 43–128 character verifier',
    },
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  requires: {
    roles: ['confidential'],
    user: true,
    capabilities: ['grant:authorization_code', 'endpoint:authorization', 'endpoint:token'],
  },
  async run(ctx) {
    const client = ctx.client('confidential');
    // Each case costs a login: a fresh code whose challenge is the S256 of the invalid verifier,
    // so only its format, never a mismatch, can get it refused.
    // Not shrunk: every shrinking step would cost a login, and the report names the kind and length.
    await ctx.property(
      fc.noShrink(invalidVerifier()),
      async ({ kind, verifier }) => {
        const { code, request } = await ctx.flows.code('confidential', {
          pkce: false,
          params: { code_challenge: s256Challenge(verifier), code_challenge_method: 'S256' },
        });
        const res = await ctx.http.token(
          client,
          {
            grant_type: GRANT.code,
            code,
            redirect_uri: request.redirect_uri,
            code_verifier: verifier,
          },
          { label: `token request with a ${kind} code_verifier` },
        );
        // RFC 7636 §4.6 names invalid_grant for a failed verification; RFC 6749 §5.2 invalid_request for a malformed
        // parameter.
        expectOAuthError(res, ['invalid_request', 'invalid_grant'], {
          when: `A token request whose code_verifier is ${describe(kind, verifier)} (its S256 matches the challenge)`,
          per: ctx.req.rfc7636_4_1,
        });
      },
      {
        runs: 8,
        label: 'invalid code_verifiers',
        show: ({ kind, verifier }) => `${kind}: ${describe(kind, verifier)}`,
      },
    );
    await expectRefusalIsFor(ctx, 'confidential', 'with an invalid code_verifier was refused', 'its format', {
      redeem: true,
    });
  },
});

/** The verifier's flaw in words (the value itself is redacted like any code_verifier). */
function describe(kind: string, verifier: string): string {
  const chars = [...verifier];
  switch (kind) {
    case 'empty':
      return 'empty';
    case 'too-short':
      return `${chars.length} characters long (fewer than 43)`;
    case 'too-long':
      return `${chars.length} characters long (more than 128)`;
    default: {
      const at = chars.findIndex((c) => !/^[A-Za-z0-9._~-]$/.test(c));
      return (
        `${chars.length} characters with ${JSON.stringify(chars[at])} at position ${at + 1}, outside the ` +
        `unreserved set`
      );
    }
  }
}
