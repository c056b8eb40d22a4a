/**
 * The registration session in a whole run (harness/run/conformance.ts runSuite): clients registered for the roles the
 * selected scenarios need, a refused role's scenarios skipped with the IdP's words, every client deleted after the
 * run — also when the run fails — and the ones that could not be deleted reported; secrets masked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../../harness/config/load.ts';
import { runSuite } from '../../../harness/run/conformance.ts';
import { CheckFailure } from '../../../harness/model/failures.ts';
import { defineScenario } from '../../../harness/scenario/scenario.ts';
import { GRANT } from '../../../protocol/grants.ts';
import { type Registrar, type RegistrarOptions, startRegistrar } from '../../support/registrar.ts';
import { planRun } from '../../../harness/run/plan.ts';
import { BUILT_IN_SCENARIOS } from '../../../suites/index.ts';

const REQ = { rule: { spec: 'RFC 7591', section: '3', level: 'MUST', party: 'server' } } as const;

/** Needs the confidential client; fails with its secret in the message (which the report must mask). */
const USES_CONFIDENTIAL = defineScenario({
  id: 'reg.uses-confidential',
  title: 'uses the registered confidential client',
  requirements: REQ,
  severity: 'info',
  requires: { roles: ['confidential'] },
  run(ctx) {
    const c = ctx.client('confidential');
    throw new CheckFailure(`the client ${c.clientId} with secret ${c.clientSecret} at ${c.redirectUri}`);
  },
});
const USES_MACHINE = defineScenario({
  id: 'reg.uses-machine',
  title: 'uses the registered machine client',
  requirements: REQ,
  severity: 'info',
  requires: { roles: ['machine'] },
  run: () => undefined,
});

let registrar: Registrar | undefined;
afterEach(async () => {
  await registrar?.close();
  registrar = undefined;
});

async function run(options: RegistrarOptions, config: Record<string, unknown> = {}, onResult?: () => void) {
  registrar = await startRegistrar(options);
  const lines: string[] = [];
  const report = runSuite(
    planRun({
      config: validateConfig({ issuer: registrar.issuer, registration: { enabled: true }, ...config }),
      scenarios: [USES_CONFIDENTIAL, USES_MACHINE],
      registrationLog: (line) => lines.push(line),
      ...(onResult ? { onResult } : {}),
    }),
  );
  return { report, lines, registrar };
}

describe('a run with registration on', () => {
  it('registers one client per needed role, uses it, deletes it, and masks its secret', async () => {
    const { report, lines, registrar } = await run({});
    const r = await report;
    expect(r.registration?.registered.map((x) => x.role)).toEqual(['confidential', 'machine']);
    expect(r.registration?.notDeleted).toEqual([]);
    expect(registrar.clients.size).toBe(0);
    const deletes = registrar.requests.filter((q) => q.method === 'DELETE');
    expect(deletes).toHaveLength(2);
    const used = r.results.find((x) => x.id === 'reg.uses-confidential')!;
    expect(used.status).toBe('failed');
    // The client's own id is shown; its secret is masked; the redirect URI is on loopback.
    expect(used.message).toMatch(
      /^the client dyn-\w+ with secret \[REDACTED:client_secret:\d+\] at http:\/\/127\.0\.0\.1:\d+\//,
    );
    expect(lines).toContain('registration: deleted 2 registered clients');
    expect(r.results.find((x) => x.id === 'reg.uses-machine')!.status).toBe('passed');
  });

  it("takes the scope the registration response states; the harness's own request only as a guess", async () => {
    const scopes = new Map<string, { scope: string; guessed: boolean }>();
    const SEES_SCOPE = defineScenario({
      id: 'reg.sees-scope',
      title: 'reads the registered clients scope',
      requirements: REQ,
      severity: 'info',
      requires: { roles: ['confidential'] },
      run(ctx) {
        const c = ctx.client('confidential');
        scopes.set(registrar!.issuer, { scope: c.scope, guessed: c.scopeGuessed === true });
      },
    });
    for (const scopeAnswer of ['openid api:read', null] as const) {
      await registrar?.close();
      registrar = await startRegistrar({ scopeAnswer });
      await runSuite(
        planRun({
          config: validateConfig({ issuer: registrar.issuer, registration: { enabled: true } }),
          scenarios: [SEES_SCOPE],
        }),
      );
      // Stated: the IdP's value, a fact. Silent: what the harness asked for, marked as its guess.
      expect(scopes.get(registrar.issuer)).toEqual(
        scopeAnswer === null
          ? { scope: 'openid profile email offline_access api:read', guessed: true }
          : { scope: 'openid api:read', guessed: false },
      );
    }
  });

  it('registers only the roles the config lacks, and only those the selection needs', async () => {
    const { report, registrar } = await run(
      {},
      { clients: { machine: { clientId: 'mine', clientSecret: 'machine-secret-123' } } },
    );
    const r = await report;
    expect(r.registration?.registered.map((x) => x.role)).toEqual(['confidential']);
    expect(registrar.requests.filter((q) => q.method === 'POST')).toHaveLength(1);
  });

  it("skips a refused role's scenarios with the IdP's error quoted, and runs the others", async () => {
    const { report } = await run({ refuseGrant: GRANT.clientCredentials });
    const r = await report;
    const machine = r.results.find((x) => x.id === 'reg.uses-machine')!;
    expect(machine.status).toBe('skipped');
    expect(machine.skipReason).toBe(
      'needs the machine client, which was not registered: the IdP refused to register it: the registration ' +
        'request got HTTP 400 with "invalid_client_metadata": "grant_types client_credentials is not allowed for ' +
        'dynamic clients"',
    );
    expect(r.registration?.refused.map((x) => x.role)).toEqual(['machine']);
    expect(r.results.find((x) => x.id === 'reg.uses-confidential')!.status).toBe('failed');
  });

  it('deletes the registered clients when the run fails', async () => {
    const { report, registrar } = await run({}, {}, () => {
      throw new Error('a reporter broke mid-run');
    });
    await expect(report).rejects.toThrow('a reporter broke mid-run');
    expect(registrar.requests.filter((q) => q.method === 'POST')).toHaveLength(2);
    expect(registrar.clients.size).toBe(0);
  });

  it('lists a client it could not delete, with its client_id, in the report and on the console', async () => {
    const { report, lines, registrar } = await run({ deleteStatus: 500 });
    const r = await report;
    const left = [...registrar.clients.keys()].sort();
    expect(left).toHaveLength(2);
    expect(r.registration?.notDeleted.map((n) => n.clientId).sort()).toEqual(left);
    expect(r.registration?.notDeleted[0]?.reason).toMatch(
      /^the client delete request got HTTP 500 with "server_error"/,
    );
    for (const id of left) {
      expect(lines.some((l) => l.startsWith(`registration: could not delete client_id ${id} `))).toBe(true);
      expect(r.notices?.some((n) => n.includes(`(client_id ${id}) could not be deleted`))).toBe(true);
    }
  });

  it('sends the initial access token, masked in the report', async () => {
    const { report, registrar } = await run(
      { initialAccessToken: 'initial-access-token-42' },
      { registration: { enabled: true, initialAccessToken: 'initial-access-token-42' } },
    );
    const r = await report;
    expect(r.registration?.registered).toHaveLength(2);
    const posts = registrar.requests.filter((q) => q.method === 'POST');
    expect(posts.map((p) => p.authorization)).toEqual([
      'Bearer initial-access-token-42',
      'Bearer initial-access-token-42',
    ]);
    expect(JSON.stringify(r)).not.toContain('initial-access-token-42');
  });

  it('without a registration endpoint: a config error that names registration.endpoint', async () => {
    const { report, registrar } = await run({ noEndpoint: true });
    await expect(report).rejects.toThrow(
      'registration.endpoint: the discovery document has no registration_endpoint; set "registration": ' +
        '{"enabled": true, "endpoint": "https://idp.example/register"}',
    );
    expect(registrar.requests.filter((q) => q.method === 'POST')).toEqual([]);
  });
});

describe('registration.fragment-refused: the refusal is judged, the code it carries is a note', () => {
  const run = async (refuseFragment: string) => {
    registrar = await startRegistrar({ refuseFragment });
    const [scenario] = BUILT_IN_SCENARIOS.filter((s) => s.id === 'registration.fragment-refused');
    const report = await runSuite(
      planRun({ config: validateConfig({ issuer: registrar.issuer }), scenarios: [scenario!], seed: 39 }),
    );
    return report.results[0]!;
  };

  it('invalid_redirect_uri or invalid_client_metadata: passed, the other code noted', async () => {
    expect((await run('invalid_redirect_uri')).status).toBe('passed');
    await registrar?.close();
    const other = await run('invalid_client_metadata');
    expect(other.status).toBe('passed');
    expect(
      other.evidence.some((e) => e.kind === 'note' && /^Refused with error=invalid_client_metadata;/.test(e.text)),
    ).toBe(true);
  });

  it('a refusal without a JSON error code: failed', async () => {
    const r = await run('text');
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(/requires HTTP 400 with a JSON object carrying an error code/);
  });
});

describe('the registration config', () => {
  const issuer = 'https://idp.example';
  const problem = (registration: unknown) => {
    try {
      validateConfig({ issuer, registration });
    } catch (error) {
      return (error as Error).message;
    }
    return 'valid';
  };

  it('names the field and the fix', () => {
    expect(problem({ enabled: true, endpoint: 'register' })).toContain(
      'registration.endpoint: must be an absolute http(s) URL, e.g. "https://idp.example/register"',
    );
    expect(problem({ enabled: true, metadata: { confidential: { client_id: 'x' } } })).toContain(
      'registration.metadata.confidential.client_id: is set by the IdP in its registration response',
    );
    expect(problem({ enabled: true, roles: ['admin'] })).toMatch(/registration\.roles\[0\]: must be one of/);
    expect(problem({ enable: true })).toMatch(/registration\.enable: unknown field; did you mean "enabled"\?/);
    expect(problem({ enabled: true, initialAccessToken: '${NOT_SET_ANYWHERE}' })).toMatch(
      /registration\.initialAccessToken.*NOT_SET_ANYWHERE/,
    );
    expect(problem({ enabled: true, metadata: { confidential: { client_name: 'x' } } })).toBe('valid');
  });
});
