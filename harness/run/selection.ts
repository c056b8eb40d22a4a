/**
 * Which scenarios a run runs: --only and --skip (globs over ids), then this shard's part; and the
 * config's expectedFailures that name no known scenario, as notices.
 */
import { idMatcher } from './glob.ts';
import type { RunPlan } from './plan.ts';
import type { Scenario } from '../scenario/scenario.ts';
import { shardOf } from './shard.ts';

export function selectScenarios(
  scenarios: readonly Scenario[],
  only: readonly string[] = [],
  skip: readonly string[] = [],
): Scenario[] {
  const isOnly = idMatcher(only);
  const isSkipped = idMatcher(skip);
  return scenarios.filter((s) => (only.length === 0 || isOnly(s.id)) && !isSkipped(s.id));
}

/** Step 2: the config's expectedFailures that name no known scenario, as notices. */
export function unknownExpectedFailures(expected: Iterable<string>, scenarios: readonly Scenario[]): string[] {
  const known = new Set(scenarios.map((s) => s.id));
  return [...expected]
    .filter((id) => !known.has(id))
    .map((id) => `expectedFailures lists "${id}", which is not a known scenario id`);
}

/** Step 3: --only and --skip, then this shard's part. */
export function selectForRun(plan: Pick<RunPlan, 'scenarios' | 'only' | 'skip' | 'shard'>): Scenario[] {
  const chosen = selectScenarios(plan.scenarios, plan.only, plan.skip);
  return plan.shard ? shardOf(chosen, plan.shard) : chosen;
}
