/** A bare scenario result for tests that only read ids and statuses (the interop comparison, its browser pass). */
import type { ScenarioResult, Status } from '../../harness/model/results.ts';

/** `said` is the skip reason of a skipped result, the message of any other. */
export const stubResult = (id: string, status: Status, said?: string): ScenarioResult => ({
  id,
  title: id,
  area: id.split('.')[0]!,
  status,
  severity: 'medium',
  requirements: [],
  catches: [],
  durationMs: 1,
  evidence: [],
  ...(status === 'skipped' ? { skipReason: said ?? 'n/a' } : said ? { message: said } : {}),
});
