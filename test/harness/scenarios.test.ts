import { afterEach, describe, expect, it } from 'vitest';
import { type TargetConfigInput, validateConfig } from '../../harness/config/load.ts';
import type { HttpEvidence } from '../../harness/model/results.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StubIdp, type StubOptions, startStubIdp } from '../support/stub-idp.ts';
import { planRun } from '../../harness/run/plan.ts';

/** The scenarios this stub was written for; the rest of the catalog asks for more than it offers. */
const FIRST = ['discovery.document', 'code.happy-path', 'client-credentials.issues-token', 'pkce.verifier-mismatch'];
const SCENARIOS = BUILT_IN_SCENARIOS.filter((s) => FIRST.includes(s.id));

let stub: StubIdp | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function run(
  options: StubOptions = {},
  only?: string[],
  configure: (c: TargetConfigInput) => TargetConfigInput = (c) => c,
) {
  stub = await startStubIdp(options);
  const report = await runSuite(
    planRun({
      config: validateConfig(configure(stub.config), {}),
      scenarios: SCENARIOS,
      seed: 1,
      ...(only ? { only } : {}),
    }),
  );
  return Object.fromEntries(report.results.map((r) => [r.id, r]));
}

describe('the first scenarios against a stub IdP', () => {
  it('all pass against a correct IdP', async () => {
    const results = await run({}, FIRST);
    for (const r of Object.values(results))
      expect({ id: r.id, status: r.status, message: r.message }).toEqual({
        id: r.id,
        status: 'passed',
        message: undefined,
      });
    expect(Object.keys(results).sort()).toEqual([...FIRST].sort());
  });

  it('pkce.verifier-mismatch fails when the verifier is ignored', async () => {
    const r = (await run({ pkceIgnored: true }, ['pkce.*']))['pkce.verifier-mismatch']!;
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(
      /code_verifier that does not match.*HTTP 200 with an access_token.*RFC 7636 §4\.6 requires.*error=invalid_grant/,
    );
    expect(r.requirements[0]!.url).toBe('https://www.rfc-editor.org/rfc/rfc7636#section-4.6');
  });

  it('discovery.document fails on an issuer mismatch', async () => {
    const r = (await run({ issuerMismatch: true }, ['discovery.document']))['discovery.document']!;
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/names the issuer ".*\/other", not the configured ".*"; OIDC Discovery §4\.3/);
  });

  it('code.happy-path fails on an ID token with the wrong aud', async () => {
    const r = (await run({ wrongAud: 'someone-else' }, ['code.happy-path']))['code.happy-path']!;
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/aud is "someone-else", which does not contain the client_id "web-app"/);
  });

  it('sends JSON token requests and client_secret_post when the config says so', async () => {
    const results = await run({}, ['code.happy-path', 'client-credentials.issues-token'], (c) => ({
      ...c,
      tokenRequestEncoding: 'json',
      clients: { ...c.clients, machine: { ...c.clients!.machine!, authMethod: 'client_secret_post' } },
    }));
    expect(Object.values(results).map((r) => r.status)).toEqual(['passed', 'passed']);
    const tokenRequest = results['client-credentials.issues-token']!.evidence[0] as HttpEvidence;
    expect(tokenRequest.request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(tokenRequest.request.body!)).toMatchObject({
      grant_type: 'client_credentials',
      client_id: 'machine',
      client_secret: expect.stringMatching(/^\[REDACTED:client_secret:\d+\]$/),
    });
    expect(tokenRequest.request.headers.authorization).toBeUndefined();
  });

  it('a target that stops answering mid-run gives an error with the cause, not a failure', async () => {
    const results = await run(
      { hangToken: true },
      ['client-credentials.issues-token', 'pkce.verifier-mismatch'],
      (c) => ({ ...c, timeouts: { requestMs: 300 } }),
    );
    for (const r of Object.values(results)) {
      expect(r.status).toBe('error');
      expect(r.message).toMatch(
        /^the target stopped answering: cannot reach http:\/\/127\.0\.0\.1:\d+\/token: no response within 300 ms$/,
      );
    }
  });

  it(
    'a configured machine client implies client_credentials, which discovery leaves out (no ' + 'longer skipped)',
    async () => {
      const r = (await run({ noClientCredentials: true }, ['client-credentials.*']))[
        'client-credentials.issues-token'
      ]!;
      expect(r).toMatchObject({ status: 'passed' });
      expect(r.evidence).toContainEqual(
        expect.objectContaining({
          kind: 'note',
          text: expect.stringContaining('enabled by the configured machine client'),
        }),
      );
    },
  );

  it('an unreadable discovery document fails discovery.document and skips what needs capabilities', async () => {
    const results = await run({ noDiscovery: true });
    expect(results['discovery.document']).toMatchObject({ status: 'failed' });
    expect(results['discovery.document']!.message).toMatch(
      /answered 404, not 200; OIDC Discovery §4 requires a JSON object at/,
    );
    expect(results['code.happy-path']!.status).toBe('skipped');
  });
});
