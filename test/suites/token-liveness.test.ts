/**
 * code.reuse-revokes-tokens asks whether tokens still work where the target lets it ask:
 * introspection, else userinfo, else a refresh (suites/checks/token-liveness.ts). The catalog
 * matrix proves the first; this hides endpoints from the reference's discovery document to prove
 * the others, and the skip when none is left.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedReference, type EmbeddedReference } from '../../cli/embedded.ts';
import { validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import type { ScenarioResult } from '../../harness/model/results.ts';
import type { FlawName } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { planRun } from '../../harness/run/plan.ts';

let ref: EmbeddedReference | undefined;
afterEach(async () => {
  await ref?.server.close();
  ref = undefined;
});

/** Runs the scenario with `hidden` discovery fields removed (and refresh_token from the grant types, if asked). */
async function run(hidden: string[], flaws: FlawName[] = [], noRefreshGrant = false): Promise<ScenarioResult> {
  ref = await startEmbeddedReference({ flaws });
  const discovery = `${ref.issuer}/.well-known/openid-configuration`;
  const filtered: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (String(input) !== discovery) return res;
    const doc = (await res.json()) as Record<string, unknown>;
    for (const field of hidden) delete doc[field];
    if (noRefreshGrant)
      doc.grant_types_supported = (doc.grant_types_supported as string[]).filter((g) => g !== 'refresh_token');
    return Response.json(doc);
  };
  const report = await runSuite(
    planRun({
      config: validateConfig(ref.target, {}),
      fetch: filtered,
      seed: 7,
      scenarios: BUILT_IN_SCENARIOS.filter((s) => s.id === 'code.reuse-revokes-tokens'),
    }),
  );
  return report.results[0]!;
}

const labels = (r: ScenarioResult) => r.evidence.flatMap((e) => (e.kind === 'http' && e.label ? [e.label] : []));

describe('code.reuse-revokes-tokens without introspection', () => {
  it('asks userinfo: passes on the reference, warns when the replay keeps the tokens', async () => {
    const clean = await run(['introspection_endpoint']);
    expect(clean.status, clean.message).toBe('passed');
    expect(labels(clean).filter((l) => l.startsWith('userinfo'))).toHaveLength(2);
    const flawed = await run(['introspection_endpoint'], ['code-reuse-keeps-tokens']);
    expect(flawed.status).toBe('warning');
    expect(flawed.message).toMatch(
      /still work at userinfo \(HTTP 200 with claims\); RFC 6749 §4\.1\.2 says the server SHOULD revoke/,
    );
  });

  it('without userinfo either, asks for a refresh', async () => {
    const clean = await run(['introspection_endpoint', 'userinfo_endpoint']);
    expect(clean.status, clean.message).toBe('passed');
    expect(labels(clean).filter((l) => l.startsWith('refresh'))).toHaveLength(2);
    const flawed = await run(['introspection_endpoint', 'userinfo_endpoint'], ['code-reuse-keeps-tokens']);
    expect(flawed.status).toBe('warning');
    expect(flawed.message).toMatch(/still work at the token endpoint \(refresh\) \(HTTP 200 with an access_token\)/);
  });

  it('a refresh token the flow issues is used though discovery leaves out the grant (issue 27 item 5)', async () => {
    const r = await run(['introspection_endpoint', 'userinfo_endpoint'], [], true);
    expect(r.status, r.message ?? r.skipReason).toBe('passed');
    expect(labels(r).filter((l) => l.startsWith('refresh'))).toHaveLength(2);
  });
});
