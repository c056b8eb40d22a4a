/**
 * Issue 39, faults 5 and 6, against the reference with clients left out of its config: a negative probe uses every
 * role that can carry it before skipping, and the skip lists what was tried (client-auth.bad-secret with any
 * confidential client, resource.audience with a code-flow client's resource); a guess is never a premise
 * (pkce.required-for-public judges only clients that do not authenticate; the scope rules only a stated scope).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import type { TargetConfig } from '../../harness/config/load.ts';
import type { ScenarioResult } from '../../harness/model/results.ts';
import type { FlawName } from '../../protocol/flaw-names.ts';
import { runConformance } from '../../index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The reference (with `flaws`), its config's clients reshaped by `clients`, and the results of `ids`. */
async function run(
  ids: string[],
  clients: (c: TargetConfig['clients']) => TargetConfig['clients'],
  flaws: FlawName[] = [],
): Promise<Record<string, ScenarioResult>> {
  const ref = await startEmbeddedReference({ flaws });
  closers.push(() => ref.server.close());
  const report = await runConformance({
    target: { ...ref.target, clients: clients(ref.target.clients) },
    scenarios: BUILT_IN_SCENARIOS.filter((s) => ids.includes(s.id)),
    seed: 39,
  });
  expect(report.results.map((r) => r.id).sort()).toEqual([...ids].sort());
  return Object.fromEntries(report.results.map((r) => [r.id, r]));
}

const without =
  (...roles: (keyof TargetConfig['clients'])[]) =>
  (c: TargetConfig['clients']): TargetConfig['clients'] =>
    Object.fromEntries(Object.entries(c).filter(([role]) => !roles.includes(role as never)));

describe('client-auth.bad-secret uses any confidential client', () => {
  it('without a machine client, the confidential client carries it: passes on the clean reference', async () => {
    const r = await run(['client-auth.bad-secret'], without('machine'));
    expect(r['client-auth.bad-secret']!.status).toBe('passed');
  }, 60_000);

  it('and catches client-secret-unchecked that way', async () => {
    const r = await run(['client-auth.bad-secret'], without('machine'), ['client-secret-unchecked']);
    expect(r['client-auth.bad-secret']!.status).toBe('failed');
    expect(r['client-auth.bad-secret']!.message).toMatch(/authorization_code request of the confidential client/);
  }, 60_000);

  it('with no confidential client with a secret, skips naming every role tried', async () => {
    const r = await run(['client-auth.bad-secret'], without('machine', 'confidential', 'confidential2'));
    expect(r['client-auth.bad-secret']!.status).toBe('skipped');
    expect(r['client-auth.bad-secret']!.skipReason).toBe(
      'no confidential client to send a wrong secret as (machine: not configured; confidential: not configured; ' +
        'confidential2: not configured)',
    );
  }, 60_000);
});

describe('resource.audience uses any client with a resource', () => {
  const moved = (c: TargetConfig['clients']): TargetConfig['clients'] => {
    const { machine, confidential, ...rest } = c;
    return { ...rest, confidential: { ...confidential!, resource: machine!.resource! } };
  };

  it('the confidential client with the resource carries it (code and refresh grants): passes', async () => {
    const r = await run(['resource.audience'], moved);
    expect(r['resource.audience']!.status).toBe('passed');
    const notes = r['resource.audience']!.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(notes.some((n) => n.startsWith('aud of the authorization_code token'))).toBe(true);
    expect(notes.some((n) => n.startsWith('aud of the refreshed token'))).toBe(true);
  }, 60_000);

  it('and catches resource-ignored that way', async () => {
    const r = await run(['resource.audience'], moved, ['resource-ignored']);
    expect(r['resource.audience']!.status).toBe('warning');
  }, 60_000);

  it('with no client that has a resource, skips naming every role tried', async () => {
    const r = await run(['resource.audience'], without('machine'));
    expect(r['resource.audience']!.skipReason).toMatch(
      /tried machine: not configured; confidential: no resource \(clients\.confidential\.resource\); /,
    );
  }, 60_000);
});

describe('a guess is never a premise', () => {
  it('pkce.required-for-public does not judge a private_key_jwt client as public', async () => {
    const r = await run(['pkce.required-for-public'], (c) => ({ keyed: c.keyed! }), ['pkce-optional-for-public']);
    expect(r['pkce.required-for-public']!.status).toBe('skipped');
  }, 60_000);

  it('scope.escalation-authorize skips where no client states its scope, judges where one does', async () => {
    const unstated = (c: TargetConfig['clients']) =>
      Object.fromEntries(Object.entries(c).map(([role, e]) => [role, { ...e!, scope: undefined }]));
    const r = await run(['scope.escalation-authorize', 'scope.escalation-token'], unstated, ['scope-unchecked']);
    expect(r['scope.escalation-authorize']!.skipReason).toMatch(/^no code-flow client's scope is stated \(public /);
    expect(r['scope.escalation-token']!.skipReason).toMatch(/^the machine client's scope "" is the harness's/);
    const stated = await run(['scope.escalation-authorize'], (c) => c, ['scope-unchecked']);
    expect(stated['scope.escalation-authorize']!.status).toBe('failed');
  }, 120_000);

  it('refresh.scope-no-widen skips a one-scope client, not failing a refresh that asks for its own scope', async () => {
    // No offline_access listed: the first grant has nothing to ask for but the client's one scope (found on OpenAuth).
    const ref = await startEmbeddedReference({});
    closers.push(() => ref.server.close());
    const scopes = ['openid', 'profile'];
    const report = await runConformance({
      target: {
        ...ref.target,
        clients: { ...ref.target.clients, confidential: { ...ref.target.clients.confidential!, scope: 'profile' } },
        discoveryOverrides: { scopes_supported: scopes },
      },
      scenarios: BUILT_IN_SCENARIOS.filter((s) => s.id === 'refresh.scope-no-widen'),
      seed: 39,
    });
    expect(report.results[0]?.status).toBe('skipped');
    expect(report.results[0]?.skipReason).toMatch(/^the confidential client's scope names no scope but profile/);
  }, 60_000);
});
