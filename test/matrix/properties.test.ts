/**
 * The property scenarios' failures as a reader meets them: the shrunk counterexample names the
 * broken variant, the HTML report shows seed, counterexample and the replay options, and the
 * replay options reproduce the counterexample exactly. (catalog.test.ts proves the verdicts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedReference, type EmbeddedReference } from '../../cli/embedded.ts';
import type { CounterexampleEvidence, Report, ScenarioResult } from '../../harness/model/results.ts';
import { runConformance } from '../../index.ts';
import type { FlawName } from '../../reference/index.ts';
import { renderHtml } from '../../reports/html.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const SEED = 20261122;

async function withFlaw<T>(flaw: FlawName, use: (ref: EmbeddedReference) => Promise<T>): Promise<T> {
  const ref = await startEmbeddedReference({ flaws: [flaw] });
  try {
    return await use(ref);
  } finally {
    await ref.server.close();
  }
}

const runOne = (ref: EmbeddedReference, id: string, extra: { seed?: number; runs?: number } = {}): Promise<Report> =>
  runConformance({ target: ref.target, scenarios: BUILT_IN_SCENARIOS, only: [id], seed: SEED, ...extra });

function counterexampleOf(r: ScenarioResult): CounterexampleEvidence {
  const cx = r.evidence.find((e): e is CounterexampleEvidence => e.kind === 'counterexample');
  expect(cx, `${r.id}: ${r.status} ${r.message ?? ''}`).toBeDefined();
  return cx!;
}

describe('redirect.exact-match against redirect-prefix-match', () => {
  let report: Report;
  let replayed: Report;
  let registered: string;
  beforeAll(async () => {
    await withFlaw('redirect-prefix-match', async (ref) => {
      registered = ref.target.clients.confidential!.redirectUri!;
      report = await runOne(ref, 'redirect.exact-match');
      const { replay } = counterexampleOf(report.results[0]!);
      const [, seed, only] = /^--seed (\d+) --only (\S+)$/.exec(replay)!;
      replayed = await runConformance({
        target: ref.target,
        scenarios: BUILT_IN_SCENARIOS,
        only: [only!],
        seed: Number(seed),
      });
    });
  }, 60_000);

  it('fails, and the shrunk counterexample is the registered URI plus a short suffix', () => {
    const r = report.results[0]!;
    expect(r.status).toBe('failed');
    const cx = counterexampleOf(r);
    const uri = cx.value.replace(/ \([a-z-]+\)$/, '');
    expect(uri.startsWith(registered)).toBe(true);
    expect(uri.length - registered.length).toBeGreaterThan(0);
    expect(uri.length - registered.length).toBeLessThanOrEqual(2);
    expect(cx.value).toMatch(/\((prefix-extension|trailing-slash|fragment)\)$/);
    expect(r.message).toContain(`redirect_uri ${uri}`);
    expect(r.message).toMatch(
      /was redirected to .* with an authorization code; RFC 9700 §4\.1\.3 requires exact string matching/,
    );
  });

  it('the HTML report shows the seed, the counterexample and the replay options outside the folded evidence', () => {
    const html = renderHtml(report);
    const cx = counterexampleOf(report.results[0]!);
    const section = /<section[^>]*id="r-redirect-exact-match"[\s\S]*?<\/section>/.exec(html)![0];
    const shown = section.slice(0, section.indexOf('<details>'));
    expect(shown).toContain(`<pre>${cx.value}</pre>`);
    expect(shown).toContain(`seed ${cx.seed}`);
    expect(shown).toContain(`<code>--seed ${SEED} --only redirect.exact-match</code>`);
  });

  it('the replay options reproduce the same counterexample', () => {
    expect(counterexampleOf(replayed.results[0]!)).toEqual(counterexampleOf(report.results[0]!));
  });
});

describe('the other property scenarios name the broken variant', () => {
  let refs: EmbeddedReference[] = [];
  afterAll(async () => {
    await Promise.all(refs.map((r) => r.server.close()));
    refs = [];
  });

  it.each<[FlawName, string, RegExp]>([
    // (pkce.verifier-format was here: it cites a client rule and is skipped in every profile now.)
    ['alg-none-accepted', 'jwt.alg-none-rejected', /^alg-none \S/],
    ['claims-overshare', 'id-token.scope-claims', /^openid( (profile|email|address|phone))*$/],
    ['error-format-wrong', 'token.error-format', /^[a-z-]+ \(.+\): .+$/],
  ])(
    '%s → %s',
    async (flaw, id, shape) => {
      const ref = await startEmbeddedReference({ flaws: [flaw] });
      refs.push(ref);
      const r = (await runOne(ref, id)).results[0]!;
      expect(r.status).toBe('failed');
      const cx = counterexampleOf(r);
      expect(cx.value).toMatch(shape);
      expect(cx.replay).toBe(`--seed ${SEED} --only ${id}`);
      const given = (await runOne(ref, id, { runs: 3 })).results[0]!;
      expect(counterexampleOf(given).replay).toBe(`--seed ${SEED} --runs 3 --only ${id}`);
    },
    60_000,
  );
});
