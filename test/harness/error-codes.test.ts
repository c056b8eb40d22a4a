/**
 * Every harness error carries a stable code, the runner sorts on it, every `error` result names it, and each code is
 * documented in docs/reports.md.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CheckFailure,
  ConfigError,
  HarnessError,
  JudgementError,
  PreconditionError,
  ScenarioTimeoutError,
  SkipSignal,
  TargetServerError,
  TargetUnreachableError,
  errorCode,
} from '../../harness/model/failures.ts';
import { OffOriginError } from '../../harness/http/client.ts';
import { LimitExceededError } from '../../harness/model/limits.ts';
import { CODES, ERROR_CODES } from '../../harness/model/results.ts';
import { judge } from '../../harness/scenario/status.ts';

const failed = () => 'failed' as const;

describe('error codes', () => {
  it('each error class carries its own code, subclasses their own', () => {
    const cases: [Error, string][] = [
      [new CheckFailure('x'), 'ERR_CHECK_FAILED'],
      [new TargetServerError('x', 502), 'ERR_TARGET_SERVER_ERROR'],
      [new HarnessError('x'), 'ERR_HARNESS'],
      [new PreconditionError('x'), 'ERR_PRECONDITION'],
      [new JudgementError('x'), 'ERR_COULD_NOT_JUDGE'],
      [new ConfigError(['x']), 'ERR_CONFIG'],
      [new TargetUnreachableError('http://127.0.0.1:1/', 'ECONNREFUSED'), 'ERR_TARGET_UNREACHABLE'],
      [new ScenarioTimeoutError('x'), 'ERR_SCENARIO_TIMEOUT'],
      [new SkipSignal('x'), 'ERR_SKIP'],
      // Caused by the target, though the harness refused: a target code (still HarnessErrors for a walk).
      [new OffOriginError('x'), 'ERR_TARGET_OFF_ORIGIN'],
      [new LimitExceededError('x'), 'ERR_TARGET_LIMIT'],
    ];
    for (const [error, code] of cases) expect(errorCode(error), error.name).toBe(code);
    // Codes are read, not guessed from the class name or the message.
    expect(errorCode(new Error('ERR_HARNESS'))).toBeUndefined();
    expect(errorCode(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(errorCode('ERR_HARNESS')).toBeUndefined();
  });

  it('the runner sorts on the code: each error result names it and keeps its message', () => {
    const cases: [unknown, string, RegExp][] = [
      [new PreconditionError('no code'), 'ERR_PRECONDITION', /^could not get as far as the check: no code$/],
      [new JudgementError('control refused'), 'ERR_COULD_NOT_JUDGE', /^could not judge: control refused$/],
      [new TargetUnreachableError('http://x/', 'reset'), 'ERR_TARGET_UNREACHABLE', /^the target stopped answering/],
      [new ScenarioTimeoutError('over 30000 ms'), 'ERR_SCENARIO_TIMEOUT', /^over 30000 ms$/],
      [new HarnessError('no endpoint'), 'ERR_HARNESS', /^no endpoint$/],
      [new TargetServerError('HTTP 502', 502), 'ERR_TARGET_SERVER_ERROR', /^HTTP 502$/],
      [new OffOriginError('refused to send x'), 'ERR_TARGET_OFF_ORIGIN', /^refused to send x$/],
      [new LimitExceededError('over 10 bytes'), 'ERR_TARGET_LIMIT', /^over 10 bytes$/],
      [Object.assign(new Error('stop'), { name: 'AbortError' }), 'ERR_SCENARIO_TIMEOUT', /^aborted after 1000 ms$/],
      [new TypeError('x is undefined'), 'ERR_UNEXPECTED', /a bug in the scenario or the harness/],
      ['a string', 'ERR_UNEXPECTED', /a bug in the scenario or the harness/],
    ];
    for (const [thrown, code, message] of cases) {
      const v = judge(thrown, [], failed, 1000);
      expect(v.status, code).toBe('error');
      expect(v.errorCode, String(thrown)).toBe(code);
      expect(v.message).toMatch(message);
    }
  });

  it('only error results carry a code', () => {
    expect(judge(undefined, [], failed, 1000).errorCode).toBeUndefined();
    expect(judge(new CheckFailure('bad'), [], failed, 1000).errorCode).toBeUndefined();
    expect(judge(new SkipSignal('n/a'), [], failed, 1000).errorCode).toBeUndefined();
  });

  it('the report schema lists every error code', () => {
    const schema = readFileSync(new URL('../../schema/report.schema.json', import.meta.url), 'utf8');
    for (const code of ERROR_CODES) expect(schema, code).toContain(`"${code}"`);
  });

  it('docs/reports.md documents every code', () => {
    const docs = readFileSync(new URL('../../docs/reports.md', import.meta.url), 'utf8');
    for (const code of CODES) expect(docs, code).toContain(`\`${code}\``);
  });
});
