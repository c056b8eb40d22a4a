/**
 * Citations that bind the server (issue 13, item 5): every requirement names the party its
 * sentence binds; a check cites a declared requirement by name; the whole catalog's
 * (scenario, requirement, party, level) table is one file a reviewer reads
 * (`idp-conformance list --requirements` prints the same).
 */
import { describe, expect, it } from 'vitest';
import { requirementTable } from '../../cli/list.ts';
import { validateConfig } from '../../harness/config/load.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import { runScenarios } from '../../harness/run/runner.ts';
import { CheckFailure, defineScenario } from '../../harness/scenario/scenario.ts';
import { targetFromDiscovery } from '../../harness/target/target.ts';
import { requirementsAudit } from '../../scripts/catalog.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { planRun } from '../../harness/run/plan.ts';

const issuer = 'https://idp.test';
const target = targetFromDiscovery(issuer, `${issuer}/.well-known/openid-configuration`, { issuer });
const config = validateConfig({ issuer }, {});
const run = async (...scenarios: ReturnType<typeof defineScenario>[]) =>
  Object.fromEntries(
    (await runScenarios(planRun({ scenarios, config, redactor: new Redactor(), seed: 1 }), target)).results.map((r) => [
      r.id,
      r,
    ]),
  );

describe('the requirement audit table', () => {
  it('lists every (scenario, requirement, party, level) of the catalog', async () => {
    const rows = requirementTable(BUILT_IN_SCENARIOS, 'spec');
    expect(rows.length).toBe(BUILT_IN_SCENARIOS.reduce((n, s) => n + s.requirements.length, 0));
    for (const r of rows) expect(['server', 'client']).toContain(r.party);
    // `npm run catalog` rewrites it (scripts/catalog.ts) after a scenario is added; review its diff.
    await expect(requirementsAudit()).toMatchFileSnapshot('../cli/__snapshots__/requirements.txt');
  });

  it('the known miscitations are fixed: client rules never set a server level', () => {
    const row = (profile: 'spec' | 'rfc', id: string) =>
      requirementTable(
        BUILT_IN_SCENARIOS.filter((s) => s.id === id),
        profile,
      );
    // RFC 7636 §4.1 tells the client how to make a verifier: not a server MUST.
    expect(row('spec', 'pkce.verifier-format')).toEqual([
      expect.objectContaining({
        label: expect.stringContaining('RFC 7636 §4.1'),
        party: 'client',
        counts: false,
        why: 'binds the client',
      }),
    ]);
    // RFC 9700 §2.1.1's "methods that do not expose the verifier" is a client SHOULD: under rfc nothing makes the
    // server refuse plain.
    expect(row('rfc', 'pkce.plain-rejected').filter((r) => r.counts)).toEqual([]);
    expect(
      row('spec', 'pkce.plain-rejected')
        .filter((r) => r.counts)
        .map((r) => r.label),
    ).toEqual(['SPEC › Code challenge (PKCE) (code_challenge_method: S256)']);
  });

  it('every scenario that claims a planted flaw is required of the server by some document of the spec profile', () => {
    const unbound = BUILT_IN_SCENARIOS.filter(
      (s) => s.catches?.length && !requirementTable([s], 'spec').some((r) => r.counts),
    );
    // Only an MCP revision requires the first of a server (RFC 6750 §2.3 lets a resource server take a token from the
    // query string; RFC 9700 §4.3.2 forbids it to clients): it is judged in the MCP profiles. Only FAPI 2.0 (SP
    // §5.4.1, MS §5.3.1) requires the others: they are judged in the fapi2 profile.
    const profileOnly = {
      'prm.query-token-refused': 'mcp-2026-07-28',
      'fapi2.rs256-refused': 'fapi2',
      'request-object.lifetime': 'fapi2',
    } as const;
    expect(unbound.map((s) => s.id).sort()).toEqual(Object.keys(profileOnly).sort());
    for (const [id, profile] of Object.entries(profileOnly)) {
      const [scenario] = BUILT_IN_SCENARIOS.filter((s) => s.id === id);
      expect(requirementTable([scenario!], profile).some((r) => r.counts)).toBe(true);
    }
  });
});

describe('a check cites a declared requirement', () => {
  it('a declaration without the party it binds fails at load', () => {
    expect(() =>
      defineScenario({
        id: 'bad.no-party',
        title: 't',
        severity: 'low',
        run: () => {},
        requirements: { r: { spec: 'RFC 6749', section: '4.1', level: 'MUST' } as never },
      }),
    ).toThrow(/requirement "r" must say which party its sentence binds \(party: 'server' or 'client'\)/);
    expect(() =>
      defineScenario({ id: 'bad.list', title: 't', severity: 'low', run: () => {}, requirements: [] as never }),
    ).toThrow(/requirements must name at least one requirement/);
  });

  it(
    "an undeclared name, or another scenario's requirement, is an error naming it, never a fall-back to the " +
      'scenario level',
    async () => {
      const other = defineScenario({
        id: 'x.other',
        title: 't',
        severity: 'low',
        run: () => {},
        requirements: { mine: { spec: 'RFC 6749', section: '10.5', level: 'SHOULD', party: 'server' } },
      });
      const byId = await run(
        defineScenario({
          id: 'x.typo',
          title: 't',
          severity: 'low',
          requirements: { single: { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', party: 'server' } },
          run: (ctx) => {
            throw new CheckFailure('x', { requirement: (ctx.req as unknown as Record<string, never>).singel });
          },
        }),
        defineScenario({
          id: 'x.foreign',
          title: 't',
          severity: 'low',
          requirements: { single: { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', party: 'server' } },
          run: () => {
            throw new CheckFailure('x', { requirement: other.req.mine! });
          },
        }),
        defineScenario({
          id: 'x.client-rule',
          title: 't',
          severity: 'low',
          requirements: {
            server: { spec: 'RFC 6749', section: '4.1.2', level: 'SHOULD', party: 'server' },
            client: { spec: 'RFC 6749', section: '4.1.2', level: 'MUST', party: 'client' },
          },
          run: (ctx) => {
            throw new CheckFailure('x', { requirement: ctx.req.client });
          },
        }),
      );
      expect(byId['x.typo']).toMatchObject({
        status: 'error',
        message: 'scenario x.typo cites the requirement "singel", which it does not declare (it declares single)',
      });
      expect(byId['x.foreign']).toMatchObject({ status: 'error' });
      expect(byId['x.foreign']!.message).toMatch(
        /^scenario x\.foreign cites RFC 6749 §10\.5 as "mine", which is not one of its declared requirements/,
      );
      // A client rule never makes the server fail at its level: the scenario's (server) level decides.
      expect(byId['x.client-rule']).toMatchObject({ status: 'warning', level: 'SHOULD' });
    },
  );
});
