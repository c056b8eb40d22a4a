/**
 * Issue 30's "Done when", measured: a target config with only the issuer, a user, a login and
 * `"registration": {"enabled": true}` against oidc-provider (registration and its management on) and against the
 * reference (open registration), beside the hand-written config of the same IdP. The zero-config run has no error
 * and no failure beyond the hand-written run's expected ones; it judges every scenario the issue's hand-written
 * five-client config judges (confidential, confidential2, public, machine, device, as a console creates them) and
 * more; what it judges is what the richest hand-written run judges but
 * the scenarios that need facts only the IdP's operator knows (which clients are first-party, the machine client's
 * resource indicator) and, on oidc-provider, token exchange, which it cannot register; and it leaves no registered
 * client behind, which the test checks in the IdP's own store.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Report, ScenarioResult } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import { startOidcProvider } from '../../interop/oidc-provider/provider.ts';

const CATALOG = BUILT_IN_SCENARIOS.filter((s) => s.area !== 'browser');
const SEED = 20261122;
/** Scenarios that need what only the operator knows: a zero-config run skips them. */
const OPERATOR_KNOWLEDGE = [
  'tokens.third-party-short-lived',
  'consent.third-party-required',
  'resource.audience',
  'resource.code-flow-audience',
];

/**
 * `ZERO_CONFIG_FIGURES=1 npx vitest run test/matrix/zero-config.test.ts` prints each run's figures, as
 * docs/target-config.md quotes them.
 */
function figures(label: string, r: Report): void {
  if (!process.env.ZERO_CONFIG_FIGURES) return;
  const s = r.summary;
  console.log(
    `${label}: ${judged(r).length} judged of ${r.results.length}; ${s.passed} passed, ${s.failed} failed, ` +
      `${s.warnings} warnings, ${s.skipped} skipped, ${s.errors} errors`,
  );
}

const judged = (r: Report) => r.results.filter((x) => x.status !== 'skipped').map((x) => x.id);
const show = (r: ScenarioResult) =>
  `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}${r.skipReason ? ` — ${r.skipReason}` : ''}`;
const bad = (r: Report, expected: string[]) =>
  r.results.filter((x) => x.status === 'error' || (x.status === 'failed' && !expected.includes(x.id))).map(show);

/**
 * The hand-written five-client config of the issue: the same IdP's confidential, confidential2, public, machine and
 * device clients as an administrator creates them in a console, and nothing only the operator knows (no first-party
 * marks, no resource indicator, no test hooks).
 */
function fiveClients(target: Record<string, unknown>): Record<string, unknown> {
  const clients = target.clients as Record<string, Record<string, unknown>>;
  const five = ['confidential', 'confidential2', 'public', 'machine', 'device'].filter((r) => clients[r]);
  const { hooks: _, ...rest } = target;
  return {
    ...rest,
    clients: Object.fromEntries(
      five.map((r) => {
        const { firstParty: __, resource: ___, ...client } = clients[r]!;
        return [r, client];
      }),
    ),
  };
}

/** Scenarios that choose among the clients at run time: judged alone (--only) as in the whole run. */
const SELECTIONS = [
  'pkce.required-for-public',
  'scope.escalation-authorize',
  'refresh.scope-no-widen',
  'refresh.rotation',
  'client-auth.bad-secret',
  'headers.clickjacking',
  'token.error-format',
];

/** The zero config of a target: its issuer, user and login, and registration on. */
const zeroTarget = (t: { issuer: string; user?: unknown; login?: unknown }) =>
  ({ issuer: t.issuer, user: t.user, login: t.login, registration: { enabled: true } }) as never;

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('zero-config against oidc-provider with registration on', () => {
  it('judges what the hand-written config does, less operator knowledge; no error; no client left', async () => {
    const op = await startOidcProvider({ authorizationPost: true, registration: true });
    closers.push(() => op.close());
    // par.http-method: its PAR endpoint answers a GET with 404, not 405 (docs/interop.md).
    const expectedFailures = ['token.json-body', 'par.http-method'];
    const { issuer, user, login } = op.target;
    const zero = await runConformance({
      target: { issuer, user, login, registration: { enabled: true }, expectedFailures },
      scenarios: CATALOG,
      seed: SEED,
    });
    const hand = await runConformance({ target: { ...op.target, expectedFailures }, scenarios: CATALOG, seed: SEED });
    const five = await runConformance({
      target: { ...fiveClients(op.target as unknown as Record<string, unknown>), expectedFailures } as never,
      scenarios: CATALOG,
      seed: SEED,
    });
    for (const [label, r] of [
      ['oidc-provider zero', zero],
      ['oidc-provider hand', hand],
      ['oidc-provider five', five],
    ])
      figures(label as string, r as Report);
    expect(bad(zero, expectedFailures)).toEqual([]);
    expect(bad(hand, expectedFailures)).toEqual([]);
    // At least as many scenarios judged as the five-client config, every one of them among them.
    expect(judged(five).filter((id) => !judged(zero).includes(id))).toEqual([]);
    expect(judged(zero).length).toBeGreaterThan(judged(five).length);
    expect(zero.registration?.registered.map((r) => r.role)).toEqual([
      'confidential',
      'confidential2',
      'public',
      'machine',
      'device',
      'keyed',
    ]);
    // oidc-provider has no token exchange: it refuses the grant type, and the exchange scenarios skip with its words
    // (as they skip with the hand-written config, which has no exchange client).
    expect(zero.registration?.refused.map((r) => r.role)).toEqual(['exchange']);
    expect(zero.results.find((r) => r.id === 'token-exchange.downscope')?.skipReason).toMatch(
      /^needs the exchange client, which was not registered: the IdP refused to register it: .*HTTP 400/,
    );
    const missing = judged(hand).filter((id) => !judged(zero).includes(id));
    expect(missing.sort()).toEqual([...OPERATOR_KNOWLEDGE].sort());
    expect(judged(zero).filter((id) => !judged(hand).includes(id))).toEqual([]);
    // Nothing left behind: the provider's store holds no dynamically registered client.
    expect(zero.registration?.notDeleted).toEqual([]);
    expect(op.registeredClients()).toEqual([]);
  }, 900_000); // three runs of the whole catalog: generous on a loaded machine
});

describe('zero-config against the reference with --registration', () => {
  it('judges what the hand-written config does, less operator knowledge; all pass; no client left', async () => {
    const ref = await startEmbeddedReference();
    closers.push(() => ref.server.close());
    const t = ref.target;
    const zero = await runConformance({ target: zeroTarget(t), scenarios: CATALOG, seed: SEED });
    const hand = await runConformance({ target: t, scenarios: CATALOG, seed: SEED });
    const five = await runConformance({
      target: fiveClients(t as unknown as Record<string, unknown>) as never,
      scenarios: CATALOG,
      seed: SEED,
    });
    for (const [label, r] of [
      ['reference zero', zero],
      ['reference hand', hand],
      ['reference five', five],
    ])
      figures(label as string, r as Report);
    expect(bad(zero, [])).toEqual([]);
    // At least as many scenarios judged as the five-client config, every one of them among them.
    expect(judged(five).filter((id) => !judged(zero).includes(id))).toEqual([]);
    expect(judged(zero).length).toBeGreaterThan(judged(five).length);
    expect(zero.results.filter((r) => r.status === 'warning').map(show)).toEqual([]);
    expect(zero.registration?.registered).toHaveLength(7);
    const missing = judged(hand).filter((id) => !judged(zero).includes(id));
    // jwks.rotation too: the hand-written config names the reference's key-rotation hook, which a zero config has not.
    expect(missing.sort()).toEqual([...OPERATOR_KNOWLEDGE, 'jwks.rotation'].sort());
    expect(zero.registration?.notDeleted).toEqual([]);
    for (const { clientId } of zero.registration?.registered ?? [])
      expect(await ref.server.context.store.findClientRegistration(clientId), clientId).toBeUndefined();
    // A selection gives the full run's verdict (issue 39): --only registers every role the selected scenario can use.
    for (const id of SELECTIONS) {
      const alone = await runConformance({ target: zeroTarget(t), scenarios: CATALOG, seed: SEED, only: [id] });
      expect(alone.results.map((r) => r.id)).toEqual([id]);
      expect(show(alone.results[0]!).split(' — ')[0], id).toBe(
        `${id}: ${zero.results.find((r) => r.id === id)?.status}`,
      );
    }
  }, 900_000); // three runs of the whole catalog: generous on a loaded machine
});
