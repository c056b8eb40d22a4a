/**
 * Was the run a verdict on the target? (docs/security.md) A run in which the core flows could not be
 * judged must not pass for one: not when errors outnumber the judged results, and not when every
 * scenario that needs a login (the code flow and everything built on it) errored.
 */
import type { ScenarioResult, Verdict } from '../model/results.ts';

const JUDGED = new Set(['passed', 'failed', 'warning']);

export function assessVerdict(results: readonly ScenarioResult[], needsLogin: ReadonlySet<string>): Verdict {
  const ran = results.filter((r) => r.status !== 'skipped');
  const errors = ran.filter((r) => r.status === 'error').length;
  const judged = ran.filter((r) => JUDGED.has(r.status)).length;
  const logins = ran.filter((r) => needsLogin.has(r.id));
  if (logins.length > 0 && logins.every((r) => r.status === 'error')) {
    return {
      judged: false,
      reason:
        `every scenario that needs a login errored (${logins.length} of ${logins.length}), so the core flows ` +
        `were not judged; see the first error`,
    };
  }
  if (errors > judged) {
    return {
      judged: false,
      reason:
        `${errors} of ${ran.length} scenario${ran.length === 1 ? '' : 's'} that ran errored ` +
        `and only ${judged} could be judged`,
    };
  }
  return { judged: true };
}
