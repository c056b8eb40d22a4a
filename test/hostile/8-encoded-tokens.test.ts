/**
 * Issue 29 item 1: tokens inside what the harness encodes are masked. The hostile IdP's ID token goes back to it as
 * id_token_hint (and, forged, with its signature kept), inside request objects, Basic credentials and form bodies;
 * every report file, the console and stderr are then decoded (every base64url and base64 run, every JWT) and must
 * give back no token the IdP issued and no configured secret.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../harness/redact/redact.ts';
import { RUN_TIMEOUT_MS, attack, expectContained } from './common.ts';
import { ALL_FORMATS, ALL_REPORTS, decodedLeaks, resultOf } from './run-cli.ts';

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('issue 29 item 1: tokens inside encoded structures', () => {
  it(
    'no token the IdP issued, and no secret, decodes out of any report',
    async () => {
      const { run, idp } = await attack('echo-tokens', {
        only: [
          'code.happy-path',
          'id-token-hint.prompt-none',
          'logout.rp-initiated',
          // Its hints are the ID token re-encoded with alg none and re-signed by the harness's own key.
          'logout.id-token-hint-checked',
          'request-object.unsigned',
          'client-credentials.issues-token',
        ],
        config: { login: { driver: 'form' } },
        args: ALL_FORMATS,
      });
      const ran = [
        'code.happy-path',
        'id-token-hint.prompt-none',
        'logout.rp-initiated',
        'logout.id-token-hint-checked',
      ].map((id) => `${id}: ${resultOf(run, id).status}`);
      expect(ran.join(', ')).not.toMatch(/error|skipped/);
      // The ID token really went back: as id_token_hint, and forged with its signature kept.
      const hints = idp.requests.filter((q) => q.url.includes('id_token_hint='));
      expect(hints.length).toBeGreaterThanOrEqual(3);
      expectContained(run, idp, 1);
      expect(Object.keys(run.files).sort()).toEqual(ALL_REPORTS);
      expect(decodedLeaks(run, idp)).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );
});

describe('issue 29 item 1: the Redactor decodes what carries a token', () => {
  const issuedIdToken = () => {
    const header = b64url({ alg: 'RS256', kid: 'k1' });
    const payload = b64url({ iss: 'https://idp.example', sub: 'alice', aud: 'web' });
    const signature = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 37 + 11) % 256)).toString('base64url');
    return { token: `${header}.${payload}.${signature}`, header, signature };
  };
  const learned = () => {
    const { token, header, signature } = issuedIdToken();
    const redactor = new Redactor([{ value: 'config-client-secret-1', kind: 'secret' }]);
    redactor.observe({
      kind: 'http',
      durationMs: 1,
      request: { method: 'POST', url: 'https://idp.example/token', headers: {} },
      response: { status: 200, headers: {}, body: JSON.stringify({ id_token: token, token_type: 'Bearer' }) },
    });
    return { redactor, token, header, signature };
  };

  it('an unsigned request object holding the ID token as id_token_hint is shown decoded, the hint masked', () => {
    const { redactor, token } = learned();
    const object = `${b64url({ alg: 'none' })}.${b64url({ client_id: 'web', id_token_hint: token, state: 's1' })}.`;
    const url = redactor.url(`https://idp.example/authorize?client_id=web&request=${object}&scope=openid`);
    expect(url).not.toContain(object);
    expect(url).toContain(
      'request=JWT(header {"alg":"none"}, payload {"client_id":"web","id_token_hint":"[REDACTED:id_token:1]",' +
        '"state":"s1"}, signature none)&scope=openid',
    );
    // In a form body (PAR) and a JSON body the same; twice redacted, the same (reports are redacted once more).
    const form = redactor.body(`request=${object}&client_id=web`);
    expect(form).toContain('[REDACTED:id_token:1]');
    expect(redactor.body(form)).toBe(form);
    const json = redactor.body(JSON.stringify({ request: object }));
    expect(JSON.parse(json).request).toMatch(/^JWT\(header .*\[REDACTED:id_token:1\].*signature none\)$/);
  });

  it('a forged copy keeping the signature, or all of it but a bit, hides the signature', () => {
    const { redactor, header, signature } = learned();
    const forged = `${header}.${b64url({ sub: 'mallory' })}.${signature}`;
    const flipped = Buffer.from(signature, 'base64url');
    flipped[100]! ^= 4;
    const nearly = `${header}.${b64url({ sub: 'mallory' })}.${flipped.toString('base64url')}`;
    for (const jwt of [forged, nearly]) {
      const out = redactor.text(`hint ${jwt} sent`);
      expect(out).toBe(
        `hint JWT(header {"alg":"RS256","kid":"k1"}, payload {"sub":"mallory"}, signature ` +
          '[REDACTED:id_token-signature:1]) sent',
      );
    }
    expect(redactor.text(`the signature alone: ${signature}`)).toBe(
      'the signature alone: [REDACTED:id_token-signature:1]',
    );
  });

  it('a configured secret inside a JWT is masked; a JWT without secrets (a DPoP proof) stays as it is', () => {
    const { redactor } = learned();
    const payload = b64url({ note: 'config-client-secret-1', n: 1 });
    const withSecret = `${b64url({ alg: 'HS256' })}.${payload}.${'A'.repeat(43)}`;
    expect(redactor.text(withSecret)).toBe(
      'JWT(header {"alg":"HS256"}, payload {"note":"[REDACTED:secret:1]","n":1}, signature (32 bytes, not shown))',
    );
    const proofHeader = b64url({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } });
    const proofClaims = b64url({ htm: 'POST', htu: 'https://idp.example/token', iat: 1, jti: 'j1' });
    const proof = `${proofHeader}.${proofClaims}.${'B'.repeat(86)}`;
    expect(redactor.headers({ dpop: proof }).dpop).toBe(proof);
    // A proof whose jwk leaks a private member is decoded with it masked.
    const leaky = proof.replace(/^[^.]+/, b64url({ alg: 'ES256', jwk: { kty: 'EC', d: 'private-scalar-value-1' } }));
    expect(redactor.text(leaky)).toMatch(/"d":"\[REDACTED:private_key:1\]"/);
  });

  it('Basic credentials: neither the header nor the base64 of client:secret shows', () => {
    const redactor = new Redactor([{ value: 'config-client-secret-1', kind: 'client_secret' }]);
    const credentials = Buffer.from('web:config-client-secret-1').toString('base64');
    const e = {
      kind: 'http' as const,
      durationMs: 1,
      request: { method: 'POST', url: 'https://idp.example/token', headers: { authorization: `Basic ${credentials}` } },
    };
    redactor.observe(e);
    expect(redactor.http(e).request.headers.authorization).toBe('Basic [REDACTED:credentials]');
    expect(redactor.text(`echoed: Basic ${credentials}`)).not.toContain(credentials);
  });
});
