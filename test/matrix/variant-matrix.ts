/**
 * The variant matrix (docs/fixture.md, "Variants"; issue 39): the reference's legitimate behaviours must not move
 * a verdict. For a variant, the whole non-browser catalog runs against the clean reference with the variant on, and
 * every scenario must get the status it gets on the plain reference (also at concurrency 8); under a variant, a
 * planted flaw must still be caught by its claimants with the status their level implies.
 *
 * Used by test/matrix/variants.test.ts (every variant against the plain reference, and a sample of flaws under each
 * variant) and by test/matrix/variant-matrix-cli.ts (the whole flaw × variant matrix).
 */
import { startEmbeddedReference } from '../../cli/embedded.ts';
import type { ProfileName, Report, ScenarioResult } from '../../harness/model/results.ts';
import type { Scenario } from '../../harness/scenario/scenario.ts';
import { runConformance } from '../../index.ts';
import type { FlawName, ReferenceOptions, VariantName } from '../../reference/index.ts';
import { CATALOG } from './flaw-matrix.ts';
import { FLAW_OPTIONS } from './opt-in.ts';

/** Generous: the matrix runs beside the rest of `npm test` on 2 cores (the slow variant adds 250 ms a response). */
const SCENARIO_TIMEOUT_MS = 180_000;

export const show = (r: ScenarioResult) =>
  `${r.id}: ${r.status}${r.message ? ` — ${r.message}` : ''}${r.skipReason ? ` — ${r.skipReason}` : ''}`;

export interface CatalogRun {
  variants?: VariantName[];
  flaws?: FlawName[];
  concurrency?: number;
  scenarios?: readonly Scenario[];
  seed: number;
  /** The profile the run judges by (default spec). */
  profile?: ProfileName;
}

/** The catalog (or `scenarios`) against a fresh embedded reference with the legacy client seeded. */
export async function runCatalog(run: CatalogRun, extra: ReferenceOptions = {}): Promise<Report> {
  const flawOptions = Object.assign({}, ...(run.flaws ?? []).map((f) => FLAW_OPTIONS[f] ?? {})) as ReferenceOptions;
  const ref = await startEmbeddedReference({
    legacyClient: true,
    ...flawOptions,
    ...extra,
    ...(run.variants ? { variants: run.variants } : {}),
    ...(run.flaws ? { flaws: run.flaws } : {}),
  });
  try {
    return await runConformance({
      target: ref.target,
      scenarios: run.scenarios ?? CATALOG,
      seed: run.seed,
      concurrency: run.concurrency ?? 4,
      scenarioTimeoutMs: SCENARIO_TIMEOUT_MS,
      ...(run.profile ? { profile: run.profile } : {}),
    });
  } finally {
    await ref.server.close();
  }
}

/** Every scenario whose status differs between the two reports, as `id: plain → variant (message)`. */
export function statusChanges(plain: Report, varied: Report): string[] {
  const before = new Map(plain.results.map((r) => [r.id, r]));
  const changes: string[] = [];
  for (const r of varied.results) {
    const was = before.get(r.id);
    if (was?.status !== r.status) changes.push(`${was ? show(was) : `${r.id}: (absent)`}  →  ${show(r)}`);
  }
  return changes;
}

/** The claimants of a flaw whose status is not the one their level implies (EXPECTED's exceptions applied). */
export function missedCatches(
  flaw: FlawName,
  report: Report,
  expected: Readonly<Partial<Record<FlawName, Record<string, { status: string }>>>>,
): string[] {
  const wrong: string[] = [];
  for (const r of report.results) {
    if (!r.catches.includes(flaw)) continue;
    const want = expected[flaw]?.[r.id]?.status ?? (r.level === 'MUST' ? 'failed' : 'warning');
    if (r.status !== want) wrong.push(`claims ${flaw}, expected ${want}, got ${show(r)}`);
  }
  return wrong;
}

/**
 * Eight representative flaws, one for each family of checks a variant could blind: code, PKCE, redirect, refresh,
 * scope, consent, the authorization response, client authentication.
 */
export const REPRESENTATIVE_FLAWS: readonly FlawName[] = [
  'code-reuse-allowed',
  'pkce-verifier-ignored',
  'redirect-prefix-match',
  'refresh-reuse-allowed',
  'scope-unchecked',
  'consent-skipped',
  'state-dropped',
  'client-secret-unchecked',
];
