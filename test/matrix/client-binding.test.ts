/**
 * Client binding judged by what the server can know (RFC 6749 §4.1.3, §10.4): with no second confidential client,
 * `code.bound-to-client` and `refresh.bound-to-client` present the grant as the public client, which the server
 * knows by its client_id. Against the reference without `clients.confidential2`: both pass on the clean reference
 * and fail on their planted flaws; with a single code-flow client they are skipped, naming the clients that would do.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import type { Report } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { FlawName } from '../../protocol/flaw-names.ts';

const ONLY = ['code.bound-to-client', 'refresh.bound-to-client'];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The two scenarios against the reference (with `flaws`), its config with only the `keep` clients. */
async function run(keep: string[], flaws: FlawName[] = []): Promise<Record<string, Report['results'][number]>> {
  const ref = await startEmbeddedReference({ flaws });
  closers.push(() => ref.server.close());
  const t = ref.target as unknown as Record<string, unknown>;
  const clients = Object.fromEntries(
    Object.entries(t.clients as Record<string, unknown>).filter(([role]) => keep.includes(role)),
  );
  const report = await runConformance({ target: { ...t, clients } as never, only: ONLY, seed: 7 });
  return Object.fromEntries(report.results.map((r) => [r.id, r]));
}

describe('client binding without a second confidential client', () => {
  it('the public client presents the grant: both pass on the clean reference', async () => {
    const r = await run(['confidential', 'public']);
    expect(r['code.bound-to-client']?.status, r['code.bound-to-client']?.message).toBe('passed');
    expect(r['refresh.bound-to-client']?.status, r['refresh.bound-to-client']?.message).toBe('passed');
  }, 120_000);

  it('and each fails on its planted flaw, the refresh one citing RFC 6749 §10.4', async () => {
    const code = await run(['confidential', 'public'], ['code-not-bound-to-client']);
    expect(code['code.bound-to-client']?.status).toBe('failed');
    expect(code['code.bound-to-client']?.message).toMatch(/by client .* with a code issued to client/);
    const refresh = await run(['confidential', 'public'], ['refresh-not-client-bound']);
    expect(refresh['refresh.bound-to-client']?.status).toBe('failed');
    expect(refresh['refresh.bound-to-client']?.message).toMatch(/by the public client .*RFC 6749 §10\.4/);
  }, 120_000);

  it('with one code-flow client there is nothing to compare: skipped, naming the clients that would do', async () => {
    const r = await run(['confidential']);
    for (const id of ONLY) {
      expect(r[id]?.status).toBe('skipped');
      expect(r[id]?.skipReason).toMatch(/needs two different code-flow clients/);
    }
  }, 120_000);
});
