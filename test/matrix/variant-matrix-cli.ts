/**
 * The whole variant matrix (issue 39), for a developer's machine or a nightly job; test/matrix/variants.test.ts runs
 * the same checks with a sample of the flaws.
 *
 *   npm run variant-matrix -- [--variant NAME]... [--flaws all|NAME,...] [--concurrency N] [--seed N]
 *
 * For each variant: the non-browser catalog against the clean reference with the variant, compared scenario by
 * scenario with the plain reference (at the given concurrency, default 4; CONCURRENCY_TOO=8 also at 8); then, for
 * each flaw (default: none; `all` for every flaw a scenario claims), its claimants under the variant with the flaw.
 * Prints every difference; exits 1 if there is one.
 */
import { parseArgs } from 'node:util';
import { FLAW_NAMES, type FlawName, VARIANT_NAMES, type VariantName, isVariantName } from '../../reference/index.ts';
import { CATALOG, EXPECTED } from './flaw-matrix.ts';
import { missedCatches, runCatalog, statusChanges } from './variant-matrix.ts';
import { FLAW_PROFILES } from './opt-in.ts';

const { values } = parseArgs({
  options: {
    variant: { type: 'string', multiple: true, default: [] },
    flaws: { type: 'string', default: '' },
    concurrency: { type: 'string', default: '4' },
    seed: { type: 'string', default: '20261128' },
    'no-baseline': { type: 'boolean', default: false },
  },
});
for (const v of values.variant) if (!isVariantName(v)) throw new Error(`unknown variant ${v}`);
const variants = (values.variant.length ? values.variant : VARIANT_NAMES) as VariantName[];
const claimed = FLAW_NAMES.filter((f) => CATALOG.some((s) => s.catches?.includes(f)));
const flaws: FlawName[] =
  values.flaws === 'all' ? claimed : values.flaws ? (values.flaws.split(',') as FlawName[]) : [];
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);

let problems = 0;
const plain = await runCatalog({ seed, concurrency });
console.log(`plain reference: ${JSON.stringify(plain.summary)}`);
for (const variant of variants) {
  const started = Date.now();
  if (!values['no-baseline']) {
    const concurrencies = process.env.CONCURRENCY_TOO
      ? [concurrency, Number(process.env.CONCURRENCY_TOO)]
      : [concurrency];
    for (const c of concurrencies) {
      const report = await runCatalog({ seed, concurrency: c, variants: [variant] });
      const changes = statusChanges(plain, report);
      problems += changes.length;
      console.log(
        `\n## ${variant} (concurrency ${c}): ${changes.length} status changes, ${JSON.stringify(report.summary)}`,
      );
      for (const line of changes) console.log(`  ${line}`);
    }
  }
  for (const flaw of flaws) {
    const scenarios = CATALOG.filter((s) => s.catches?.includes(flaw));
    // A flaw judged in another profile (FLAW_PROFILES: MCP revisions, fapi2) is run in it, as flaw-matrix.ts does.
    const profile = FLAW_PROFILES[flaw];
    const report = await runCatalog({
      seed,
      variants: [variant],
      flaws: [flaw],
      scenarios,
      ...(profile ? { profile } : {}),
    });
    const missed = missedCatches(flaw, report, EXPECTED);
    problems += missed.length;
    if (missed.length) console.log(`  ${variant} × ${flaw}:\n    ${missed.join('\n    ')}`);
  }
  console.log(`  (${variant}: ${Math.round((Date.now() - started) / 1000)} s)`);
}
console.log(`\n${problems} problem(s)`);
process.exit(problems ? 1 : 0);
