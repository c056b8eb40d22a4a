/**
 * code.lifetime (issue 45) waits out a code's lifetime, so it runs only when the run allows waits (`--with-waits`,
 * RunSettings.withWaits): against a reference whose codes live 2 s (declared in its target config as
 * codeLifetimeSeconds) it passes clean and fails under the planted flaw code-never-expires; without waits it is skipped
 * with the wait it would need, taken from facts only (the declared lifetime, FAPI 2.0's 60 s, else RFC 6749's
 * RECOMMENDED 10 minutes). Under --profile fapi2 it holds the code 65 s on the FAPI reference (PAR, DPoP proofs).
 */
import { describe, expect, it } from 'vitest';
import { startEmbeddedReference } from '../../cli/embedded.ts';
import type { ProfileName, ScenarioResult } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { ReferenceOptions } from '../../reference/index.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';
import { SHORT_CODE_LIFETIME } from './opt-in.ts';

const SCENARIO = BUILT_IN_SCENARIOS.filter((s) => s.id === 'code.lifetime');

async function run(
  options: ReferenceOptions,
  settings: { withWaits?: boolean; profile?: ProfileName; declared?: boolean } = {},
): Promise<ScenarioResult> {
  const ref = await startEmbeddedReference(options);
  try {
    const { codeLifetimeSeconds, ...rest } = ref.target;
    expect(codeLifetimeSeconds).toBe(options.lifetimes?.authorizationCode ?? 60);
    const report = await runConformance({
      target: settings.declared === false ? rest : ref.target,
      scenarios: SCENARIO,
      seed: 45,
      ...(settings.withWaits ? { withWaits: true } : {}),
      ...(settings.profile ? { profile: settings.profile } : {}),
    });
    const [result] = report.results;
    if (!result) throw new Error('code.lifetime did not run');
    return result;
  } finally {
    await ref.server.close();
  }
}

const show = (r: ScenarioResult) => `${r.status}: ${r.message ?? r.skipReason ?? ''}`;

describe('code.lifetime', () => {
  it('with waits, passes on the clean reference: the code is refused 7 s after it was issued', async () => {
    const result = await run(SHORT_CODE_LIFETIME, { withWaits: true });
    expect(result.status, show(result)).toBe('passed');
    const notes = result.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(notes.join('\n')).toMatch(/Waited 7\.0 s: .*the config declares 2 s \(codeLifetimeSeconds\), plus 5 s/);
  }, 120_000);

  it('with waits, fails under code-never-expires (RFC 6749 §4.1.2 MUST, the declared lifetime)', async () => {
    const result = await run({ ...SHORT_CODE_LIFETIME, flaws: ['code-never-expires'] }, { withWaits: true });
    expect(result.status, show(result)).toBe('failed');
    expect(result.failureKind).toBe('accepted');
    expect(result.message).toMatch(/7 s after it was issued .* RFC 6749 §4\.1\.2/);
  }, 120_000);

  it('without waits it is skipped with the wait it needs: the declared lifetime, else 10 minutes', async () => {
    const declared = await run(SHORT_CODE_LIFETIME);
    expect(declared.status).toBe('skipped');
    expect(declared.skipReason).toBe(
      'waits 7 s (the config declares 2 s (codeLifetimeSeconds)); run with --with-waits',
    );
    const undeclared = await run({}, { declared: false });
    expect(undeclared.skipReason).toMatch(/^waits 605 s \(no lifetime is declared .*RECOMMENDED maximum of 10 minutes/);
  }, 120_000);

  it("under --profile fapi2 it waits FAPI 2.0 SP §5.3.2.1's 60 s, whatever the config declares", async () => {
    const result = await run({ profile: 'fapi2' }, { profile: 'fapi2' });
    expect(result.skipReason).toBe('waits 65 s (FAPI 2.0 SP §5.3.2.1 caps it at 60 s); run with --with-waits');
  }, 120_000);

  it('with waits under --profile fapi2, the FAPI reference (PAR, DPoP) keeps a flawed code 65 s: failed at ' +
    'FAPI 2.0 SP §5.3.2.1', async () => {
    const result = await run(
      { profile: 'fapi2', flaws: ['code-never-expires'] },
      { withWaits: true, profile: 'fapi2' },
    );
    expect(result.status, show(result)).toBe('failed');
    expect(result.message).toMatch(/65 s after it was issued .* FAPI 2\.0 SP §5\.3\.2\.1/);
  }, 240_000);
});
