/**
 * Which scenarios a run runs: --only and --skip (globs over ids), then this shard's part (selectionOf, which planRun
 * calls once: the plan's `selection`); and the config's expectedFailures that name no known scenario, as notices.
 */
import { idMatcher } from './glob.ts';
import type { Scenario } from '../scenario/scenario.ts';
import { type Shard, shardOf } from './shard.ts';

/** A run's selection, as the plan holds it: what was asked, and the scenarios it selects. */
export interface Selection {
  only: readonly string[];
  skip: readonly string[];
  shard: Shard | undefined;
  /** The scenarios --only and --skip select, before the shard (registration registers their roles). */
  matching: readonly Scenario[];
  /** This shard's part of `matching` (all of it without --shard): the scenarios the run runs. */
  scenarios: readonly Scenario[];
}

/** --only and --skip over the scenarios' ids (also `idp-conformance list` and the interop matrix). */
export function selectScenarios(
  scenarios: readonly Scenario[],
  only: readonly string[] = [],
  skip: readonly string[] = [],
): Scenario[] {
  const isOnly = idMatcher(only);
  const isSkipped = idMatcher(skip);
  return scenarios.filter((s) => (only.length === 0 || isOnly(s.id)) && !isSkipped(s.id));
}

/** The selection: --only and --skip, then this shard's part. */
export function selectionOf(
  scenarios: readonly Scenario[],
  asked: Pick<Selection, 'only' | 'skip' | 'shard'>,
): Selection {
  const matching = selectScenarios(scenarios, asked.only, asked.skip);
  return { ...asked, matching, scenarios: asked.shard ? shardOf(matching, asked.shard) : matching };
}

/** The config's expectedFailures that name no known scenario, as notices. */
export function unknownExpectedFailures(expected: Iterable<string>, scenarios: readonly Scenario[]): string[] {
  const known = new Set(scenarios.map((s) => s.id));
  return [...expected]
    .filter((id) => !known.has(id))
    .map((id) => `expectedFailures lists "${id}", which is not a known scenario id`);
}
