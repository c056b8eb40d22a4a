import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import { configSecrets, validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import { basicAuthorization } from '../../harness/http/wire.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import type { HttpEvidence } from '../../harness/model/results.ts';
import { REPORT_FORMATS, writeReports } from '../../reports/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { OPT_IN } from '../matrix/opt-in.ts';
import { SEEDED_KEYED_PRIVATE_JWK } from '../../reference/index.ts';
import { planRun } from '../../harness/run/plan.ts';

const exchange = (over: Partial<HttpEvidence> = {}): HttpEvidence => ({
  kind: 'http',
  durationMs: 1,
  request: { method: 'POST', url: 'https://idp.test/token', headers: {} },
  ...over,
});

describe('the redactor', () => {
  it('redacts config secrets by value in every encoding a transcript may show', () => {
    const secret = 'p@ss "word"/+1';
    const r = new Redactor([secret]);
    const shown = [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
      JSON.stringify(secret).slice(1, -1),
      'p@ss &quot;word&quot;/+1',
    ];
    expect(r.text(shown.join(' | '))).toBe(Array(5).fill('[REDACTED:secret:1]').join(' | '));
  });

  it('redacts by field name even for values never seen, with stable labels', () => {
    const r = new Redactor();
    const e = r.http(
      exchange({
        request: {
          method: 'POST',
          url: 'https://idp.test/token?token=abc',
          headers: { authorization: basicAuthorization('web', 'hunter2-secret'), cookie: 'sid=s1; other=o2' },
          body: 'grant_type=authorization_code&code=c0de-value&code_verifier=v3rifier-value&client_secret=sh',
        },
        response: {
          status: 200,
          headers: {
            'set-cookie': 'sid=new-session; Path=/; HttpOnly',
            location: 'https://app.test/cb#access_token=frag-token-1&state=s',
          },
          body: JSON.stringify({
            access_token: 'at-value-123',
            refresh_token: 'rt-value-456',
            nested: { id_token: 'idt-789' },
            token_type: 'Bearer',
          }),
        },
      }),
    );
    const text = JSON.stringify(e);
    for (const secret of [
      'hunter2',
      'c0de-value',
      'v3rifier-value',
      'client_secret=sh',
      'at-value-123',
      'rt-value-456',
      'idt-789',
      'frag-token-1',
      'new-session',
      's1',
      'token=abc',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(e.request.headers.authorization).toBe('Basic [REDACTED:credentials]');
    expect(e.request.body).toBe(
      'grant_type=authorization_code&code=[REDACTED:code:1]&code_verifier=[REDACTED:code_verifier:1]&client_secret=[' +
        'REDACTED:client_secret:1]',
    );
    // the fragment's access_token (in the Location header) was the first one seen
    expect(JSON.parse(e.response!.body!)).toEqual({
      access_token: '[REDACTED:access_token:2]',
      refresh_token: '[REDACTED:refresh_token:1]',
      nested: { id_token: '[REDACTED:id_token:1]' },
      token_type: 'Bearer',
    });
    expect(r.http(e)).toEqual(e); // idempotent
  });

  it('masks JSON members by value, not by name: an error body\'s "code" stays, a learned code is masked', () => {
    const r = new Redactor();
    // A code the target issued (in the Location of its authorization response): learned.
    r.observe(exchange({ response: { status: 302, headers: { location: '/cb?code=issuedcodevalue' } } }));
    const errors = [
      { code: 'SOME_ERROR', message: 'x' },
      { code: 'MISSING_OR_NULL_ORIGIN', message: 'Missing or null Origin' },
      { error: { code: 'invalid_request', token: 'expired' } },
      { code: 'ERR_TOKEN_42' },
    ];
    for (const body of errors) {
      const e = exchange({ response: { status: 403, headers: {}, body: JSON.stringify(body) } });
      r.observe(e);
      expect(JSON.parse(r.http(e).response!.body!)).toEqual(body);
    }
    // Nothing of them was learned: a later message that quotes them keeps them.
    expect(r.text('refused: MISSING_OR_NULL_ORIGIN')).toBe('refused: MISSING_OR_NULL_ORIGIN');
    // The learned code is masked wherever it appears, in a JSON member named code included; a JSON member that holds
    // a value shaped like a credential (a JWT, a random string with digits) is masked by its name as before.
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJlLXZhbHVl';
    const e = exchange({
      request: {
        method: 'POST',
        url: 'https://idp.test/token',
        headers: {},
        body: JSON.stringify({ grant_type: 'authorization_code', code: 'issuedcodevalue' }),
      },
      response: {
        status: 400,
        headers: {},
        body: JSON.stringify({ code: 'issuedcodevalue', token: jwt, other: { code: 'Zq8sPp3kLx9VtR2m' } }),
      },
    });
    r.observe(e);
    const shown = r.http(e);
    expect(JSON.parse(shown.request.body!).code).toBe('[REDACTED:code:1]');
    expect(JSON.parse(shown.response!.body!)).toEqual({
      code: '[REDACTED:code:1]',
      token: '[REDACTED:token:1]',
      other: { code: '[REDACTED:code:2]' },
    });
    expect(r.text(`${jwt} Zq8sPp3kLx9VtR2m`)).toBe('[REDACTED:token:1] [REDACTED:code:2]');
    // In a URL or a form, code and token stay secret by name, whatever they hold.
    expect(r.url('https://app.test/cb?code=SOME_ERROR&state=s')).toBe(
      'https://app.test/cb?code=[REDACTED:code:3]&state=s',
    );
  });

  it('redacts the private members of JWKs (a leaking JWKS), and nothing else of them or of other objects', () => {
    const r = new Redactor();
    const leaked = {
      keys: [
        {
          kty: 'RSA',
          kid: 'k1',
          n: 'public-modulus-n',
          e: 'AQAB',
          d: 'private-exponent-d',
          p: 'prime-p-value',
          q: 'prime-q-value',
          dp: 'dp-value-123',
          dq: 'dq-value-123',
          qi: 'qi-value-123',
          oth: [{ r: 'oth-prime-r', d: 'oth-exp-d1', t: 'oth-coef-t' }],
        },
        { kty: 'oct', kid: 'h1', k: 'symmetric-key-k' },
      ],
    };
    const e = exchange({
      request: { method: 'GET', url: 'https://idp.test/jwks', headers: {} },
      response: { status: 200, headers: {}, body: JSON.stringify(leaked) },
    });
    r.observe(e);
    const text = JSON.stringify(r.http(e));
    for (const secret of [
      'private-exponent-d',
      'prime-p-value',
      'prime-q-value',
      'dp-value-123',
      'dq-value-123',
      'qi-value-123',
      'oth-prime-r',
      'oth-exp-d1',
      'oth-coef-t',
      'symmetric-key-k',
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('public-modulus-n');
    expect(r.text('the key private-exponent-d leaked')).toBe('the key [REDACTED:private_key:1] leaked');
    // Outside a JWK (no kty), short field names such as d or k are ordinary data.
    expect(JSON.parse(new Redactor().body(JSON.stringify({ d: 'plain-data-d', k: 'plain-data-k' })))).toEqual({
      d: 'plain-data-d',
      k: 'plain-data-k',
    });
  });

  it('learns tokens the target sent and replaces them anywhere later, e.g. in a failure message', () => {
    const r = new Redactor();
    r.observe(exchange({ response: { status: 200, headers: {}, body: '{"access_token":"learned-token-xyz"}' } }));
    r.observe(exchange({ response: { status: 302, headers: { location: '/cb?code=learned-code-1' } } }));
    // What the harness sent is not learned: a Bearer token it forged stays readable (a token the target issued was
    // learned from its response).
    r.observe(
      exchange({
        request: {
          method: 'GET',
          url: 'https://idp.test/userinfo',
          headers: { authorization: 'Bearer forged-token-abc' },
        },
      }),
    );
    expect(r.text('token learned-token-xyz, forged-token-abc and learned-code-1 leaked')).toBe(
      'token [REDACTED:access_token:1], forged-token-abc and [REDACTED:code:1] leaked',
    );
  });
});

describe('reports never contain secrets or tokens', () => {
  it('a full run against the reference: no config secret and no token seen in traffic appears in any ' +
    'report file', async () => {
    // With the legacy client: the password grant sends the user's password, implicit tokens ride in a fragment.
    const ref = await startEmbeddedReference({ legacyClient: true });
    const seen = new Set<string>();
    const spy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const text = await res.clone().text();
      const location = res.headers.get('location');
      if (location) {
        const url = new URL(location, String(input));
        for (const [k, v] of url.searchParams) if (k === 'code') seen.add(v);
        for (const [k, v] of new URLSearchParams(url.hash.slice(1))) if (k.endsWith('token')) seen.add(v);
      }
      for (const c of res.headers.getSetCookie()) seen.add(c.split(';')[0]!.split('=').slice(1).join('='));
      try {
        const body = JSON.parse(text) as Record<string, unknown>;
        for (const k of ['access_token', 'refresh_token', 'id_token', 'device_code', 'user_code'])
          if (typeof body[k] === 'string') seen.add(body[k]);
      } catch {
        /* not JSON */
      }
      const sent = typeof init?.body === 'string' ? new URLSearchParams(init.body) : undefined;
      const verifier = sent?.get('code_verifier');
      if (verifier) seen.add(verifier);
      return res;
    };
    try {
      const config = validateConfig(ref.target, {});
      const report = await runSuite(planRun({ config, scenarios: BUILT_IN_SCENARIOS, fetch: spy, seed: 3 }));
      // Everything ran; offering the legacy grants is only a warning; what only a client rule requires is skipped.
      // par.required is skipped with its reason: the default reference does not require PAR.
      const clientRules = BUILT_IN_SCENARIOS.filter((s) => s.requirements.every((q) => q.party === 'client')).map(
        (s) => s.id,
      );
      expect(
        report.results
          .filter(
            (r) =>
              r.status !== 'passed' &&
              !Object.hasOwn(OPT_IN, r.id) &&
              !(r.status === 'skipped' && clientRules.includes(r.id)),
          )
          .map((r) => [r.id, r.status]),
      ).toEqual(
        report.results
          // implicit.deprecated passes: the reference keeps implicit for the legacy client configured for it.
          .filter((r) => ['password.no-refresh-token'].includes(r.id))
          .map((r) => [r.id, 'warning']),
      );
      expect(report.summary.total).toBe(BUILT_IN_SCENARIOS.length);
      const dir = await mkdtemp(path.join(tmpdir(), 'idpc-redaction-'));
      await writeReports(report, dir, REPORT_FORMATS);
      const secrets = [...configSecrets(config).map((s) => s.value), ...seen].filter((s) => s.length >= 6);
      expect(seen.size).toBeGreaterThan(5);
      expect(secrets).toEqual(expect.arrayContaining([ref.target.user.password]));
      // The keyed client's private JWK is a config secret: its private member is redacted too.
      expect(secrets).toEqual(expect.arrayContaining([SEEDED_KEYED_PRIVATE_JWK.d]));
      const files = await readdir(dir);
      expect(files.sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md', 'report.sarif']);
      for (const file of files) {
        const text = await readFile(path.join(dir, file), 'utf8');
        for (const secret of secrets) {
          for (const form of [secret, encodeURIComponent(secret), Buffer.from(secret).toString('base64')]) {
            expect(text.includes(form), `${file} contains a secret`).toBe(false);
          }
        }
      }
      const json = await readFile(path.join(dir, 'report.json'), 'utf8');
      expect(json).toContain('[REDACTED:password');
      expect(json).toContain('[REDACTED:access_token');
    } finally {
      await ref.server.close();
    }
  }, 240_000); // runs the whole catalog: generous on a loaded machine
});
