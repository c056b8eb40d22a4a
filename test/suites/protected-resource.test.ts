/**
 * The protected resource scenarios (prm.*, and resource.code-flow-audience with a configured resource) against the
 * reference as the authorization server and a stub resource (test/support/stub-resource.ts) that is right, or wrong
 * in the one way a scenario must notice; the statuses per MCP revision where the revisions differ.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedReference, type EmbeddedReference } from '../../cli/embedded.ts';
import { validateConfig } from '../../harness/config/load.ts';
import { runSuite } from '../../harness/run/conformance.ts';
import { planRun } from '../../harness/run/plan.ts';
import type { ProfileName, ScenarioResult } from '../../harness/model/results.ts';
import { DEFAULT_RESOURCES } from '../../reference/options.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { startStubResource, type StubResource, type StubResourceOptions } from '../support/stub-resource.ts';

let ref: EmbeddedReference | undefined;
let rs: StubResource | undefined;
afterEach(async () => {
  await ref?.server.close();
  await rs?.close();
  ref = undefined;
  rs = undefined;
});

async function run(
  ids: string[],
  options: StubResourceOptions = {},
  profile: ProfileName = 'spec',
  resource: 'with-other' | 'alone' | 'none' = 'with-other',
): Promise<Record<string, ScenarioResult>> {
  rs = await startStubResource(options);
  ref = await startEmbeddedReference({ resources: [rs.url, ...DEFAULT_RESOURCES] });
  rs.issuer = ref.issuer;
  const config = {
    ...ref.target,
    ...(resource === 'none'
      ? {}
      : { resource: { url: rs.url, ...(resource === 'with-other' ? { otherResource: DEFAULT_RESOURCES[0] } : {}) } }),
  };
  const report = await runSuite(
    planRun({
      config: validateConfig(config, {}),
      seed: 7,
      profile,
      scenarios: BUILT_IN_SCENARIOS.filter((s) => ids.includes(s.id)),
    }),
  );
  return Object.fromEntries(report.results.map((r) => [r.id, r]));
}

const PRM = ['prm.metadata', 'prm.challenge', 'prm.audience-enforced', 'prm.query-token-refused'];

describe('the prm scenarios', () => {
  it('pass on a resource that does everything right (every MCP revision)', async () => {
    for (const profile of ['mcp-2025-06-18', 'mcp-2025-11-25', 'mcp-2026-07-28'] as const) {
      const results = await run(PRM, {}, profile);
      for (const id of PRM) expect(results[id]?.status, `${profile} ${id}: ${results[id]?.message}`).toBe('passed');
      await ref?.server.close();
      await rs?.close();
      ref = undefined;
      rs = undefined;
    }
  }, 120_000); // three runs of four scenarios with logins: generous on a loaded machine

  it('skip with the reason on a target without a protected resource', async () => {
    const results = await run(PRM, {}, 'mcp-2026-07-28', 'none');
    for (const id of PRM) {
      expect(results[id]?.status).toBe('skipped');
      expect(results[id]?.message).toMatch(/no protected resource configured: add `resource` to the config/);
    }
  }, 60_000);

  it('prm.metadata fails when the metadata names another resource', async () => {
    const { 'prm.metadata': result } = await run(['prm.metadata'], { metadata: 'mismatch' });
    expect(result?.status).toBe('failed');
    expect(result?.message).toMatch(/has resource "http:\/\/127\.0\.0\.1:\d+\/mcp\/other", not the resource URL/);
  });

  it('prm.challenge: a Bearer challenge without resource_metadata, judged per revision', async () => {
    const spec = await run(['prm.challenge'], { challenge: 'bare' });
    expect(spec['prm.challenge']?.status).toBe('passed');
    await ref?.server.close();
    await rs?.close();
    const old = await run(['prm.challenge'], { challenge: 'bare' }, 'mcp-2025-06-18');
    expect(old['prm.challenge']?.status).toBe('failed');
    expect(old['prm.challenge']?.message).toMatch(/has no resource_metadata; MCP 2025-06-18 › Authorization Server/);
    await ref?.server.close();
    await rs?.close();
    // 2025-11-25 and later take the well-known URI instead, when it serves the metadata.
    const newer = await run(['prm.challenge'], { challenge: 'bare' }, 'mcp-2025-11-25');
    expect(newer['prm.challenge']?.status).toBe('passed');
    await ref?.server.close();
    await rs?.close();
    const neither = await run(['prm.challenge'], { challenge: 'bare', metadata: 'none' }, 'mcp-2026-07-28');
    expect(neither['prm.challenge']?.status).toBe('failed');
    expect(neither['prm.challenge']?.message).toMatch(/no well-known URI serves the metadata/);
  }, 60_000);

  it('prm.challenge names, never fetches, a resource_metadata off the allowed origins', async () => {
    const { 'prm.challenge': result } = await run(['prm.challenge'], { challenge: 'elsewhere' }, 'mcp-2025-06-18');
    expect(result?.status).toBe('passed');
    const sent = result?.evidence.flatMap((e) => (e.kind === 'http' ? [e.request.url] : [])) ?? [];
    expect(sent.some((url) => url.startsWith('https://metadata.invalid'))).toBe(false);
    const notes = result?.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : [])) ?? [];
    expect(notes.join('\n')).toMatch(/names https:\/\/metadata\.invalid\/prm, which is not fetched/);
  });

  it('prm.challenge fails a 401 without a challenge', async () => {
    const { 'prm.challenge': result } = await run(['prm.challenge'], { challenge: 'none' });
    expect(result?.status).toBe('failed');
    expect(result?.message).toMatch(/no WWW-Authenticate header; RFC 6750 §3/);
  });

  it('prm.audience-enforced fails a resource that takes a token for another resource', async () => {
    const { 'prm.audience-enforced': result } = await run(['prm.audience-enforced'], { audienceUnchecked: true });
    expect(result?.status).toBe('failed');
    expect(result?.message).toMatch(/accepted an access token issued for another resource, https:\/\/api\.example/);
  }, 60_000);

  it('prm.audience-enforced fails a resource that takes a token the server never issued', async () => {
    const { 'prm.audience-enforced': result } = await run(['prm.audience-enforced'], { signatureUnchecked: true });
    expect(result?.status).toBe('failed');
    expect(result?.message).toMatch(/accepted an access token the server never issued/);
  }, 60_000);

  it('prm.query-token-refused: judged in MCP profiles only; fails a resource taking ?access_token=', async () => {
    const spec = await run(['prm.query-token-refused'], { queryToken: true });
    expect(spec['prm.query-token-refused']?.status).toBe('skipped');
    await ref?.server.close();
    await rs?.close();
    const mcp = await run(['prm.query-token-refused'], { queryToken: true }, 'mcp-2026-07-28');
    expect(mcp['prm.query-token-refused']?.status).toBe('failed');
    expect(mcp['prm.query-token-refused']?.message).toMatch(/from the URI query string \(access_token\)/);
  }, 60_000);
});

describe('resource.code-flow-audience with a protected resource', () => {
  it("passes on the reference for the resource's URL", async () => {
    // Without resource.otherResource: whether a refresh may widen the grant depends on the reference's binding.
    const { 'resource.code-flow-audience': result } = await run(['resource.code-flow-audience'], {}, 'spec', 'alone');
    expect(result?.status, result?.message).toBe('passed');
    const notes = result?.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : [])) ?? [];
    expect(notes.join('\n')).toMatch(/aud of the access token of the code asked for http:\/\/127\.0\.0\.1:\d+\/mcp/);
  }, 60_000);
});

describe('mcp.https-endpoints', () => {
  /** The reference, its metadata served with an http revocation endpoint on a host that is not loopback. */
  async function plainRevocation(profile: ProfileName): Promise<ScenarioResult | undefined> {
    // Without registration: the redirect URI rule is not judged here.
    ref = await startEmbeddedReference({ registration: false });
    const discovery = `${ref.issuer}/.well-known/openid-configuration`;
    const served: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (String(input) !== discovery) return res;
      const doc = (await res.json()) as Record<string, unknown>;
      return Response.json({ ...doc, revocation_endpoint: 'http://as.example/revoke' });
    };
    const report = await runSuite(
      planRun({
        config: validateConfig(ref.target, {}),
        fetch: served,
        seed: 7,
        profile,
        scenarios: BUILT_IN_SCENARIOS.filter((s) => s.id === 'mcp.https-endpoints'),
      }),
    );
    return report.results[0];
  }

  it('notes an http endpoint no document of the profile covers; MCP fails it', async () => {
    const spec = await plainRevocation('spec');
    expect(spec?.status, spec?.message).toBe('passed');
    const notes = spec?.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : [])) ?? [];
    expect(notes.join('\n')).toMatch(/revocation_endpoint is http:\/\/as\.example\/revoke, neither https nor/);
    await ref?.server.close();
    const mcp = await plainRevocation('mcp-2025-11-25');
    expect(mcp?.status).toBe('failed');
    expect(mcp?.message).toMatch(/revocation_endpoint .*; MCP 2025-11-25 › Communication Security/);
  }, 60_000);
});
