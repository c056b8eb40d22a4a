/** A requirement reference for tests of checks outside a scenario: `ref('RFC 7636 §4.6')`. */
import {
  type Requirement,
  type RequirementRef,
  type SpecName,
  declareRequirements,
} from '../../harness/model/requirements.ts';
import type { Level } from '../../harness/model/results.ts';

export function ref(label: string, level: Level = 'MUST', party: Requirement['party'] = 'server'): RequirementRef {
  const spec = /^SPEC › (.+)$/.exec(label);
  const doc = /^(.+) §(.+)$/.exec(label);
  const r: Requirement = spec
    ? { spec: 'SPEC', section: spec[1]!, level, party }
    : { spec: doc![1] as SpecName, section: doc![2]!, level, party };
  return declareRequirements({ r }).r;
}
