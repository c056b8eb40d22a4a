import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config.ts';
import { runSuite } from '../../harness/conformance.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { type StubIdp, type StubOptions, startStubIdp } from '../support/stub-idp.ts';

let stub: StubIdp | undefined;
afterEach(async () => { await stub?.close(); stub = undefined; });

async function run(options: StubOptions = {}, only?: string[]) {
  stub = await startStubIdp(options);
  const report = await runSuite({ config: validateConfig(stub.config, {}), scenarios: BUILT_IN_SCENARIOS, seed: 1, ...(only ? { only } : {}) });
  return Object.fromEntries(report.results.map((r) => [r.id, r]));
}

describe('the first scenarios against a stub IdP', () => {
  it('all pass against a correct IdP', async () => {
    const results = await run();
    for (const r of Object.values(results)) expect({ id: r.id, status: r.status, message: r.message }).toEqual({ id: r.id, status: 'passed', message: undefined });
    expect(Object.keys(results).sort()).toEqual(BUILT_IN_SCENARIOS.map((s) => s.id).sort());
  });

  it('pkce.verifier-mismatch fails when the verifier is ignored', async () => {
    const r = (await run({ pkceIgnored: true }, ['pkce.*']))['pkce.verifier-mismatch']!;
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/code_verifier that does not match.*HTTP 200 with an access_token.*RFC 7636 §4\.6 requires.*error=invalid_grant/);
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
});
