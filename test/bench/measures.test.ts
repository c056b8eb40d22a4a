import { describe, expect, it } from 'vitest';
import { summarizeProfile } from '../../bench/cpu-profile.ts';
import { rawSignRate } from '../../bench/signing.ts';
import { generateSigningKey } from '../../reference/keys.ts';

describe('bench measures', () => {
  it('counts raw signatures of the server key through the thread pool, with their CPU cost', async () => {
    const result = await rawSignRate(generateSigningKey('EdDSA'), { durationMs: 100, inflight: 8 });
    expect(result.signatures).toBeGreaterThan(0);
    expect(result.perSecond).toBeCloseTo((result.signatures / result.durationMs) * 1000);
    expect(result.cpuPerSignatureUs).toBeGreaterThan(0);
  });

  it('summarises a CPU profile: self time by function and file, inclusive time up the stack', () => {
    const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
      id,
      callFrame: { functionName, url, lineNumber: 0 },
      children,
    });
    const profile = {
      nodes: [
        frame(1, '(root)', '', [2]),
        frame(2, 'handler', 'file:///x/token.ts', [3]),
        frame(3, 'sign', 'file:///x/jws.ts'),
      ],
      startTime: 0,
      endTime: 40,
      samples: [2, 3, 3, 3],
      timeDeltas: [10_000, 10_000, 10_000, 10_000],
    };
    const summary = summarizeProfile(profile);
    expect(summary.total).toBe(40);
    expect(summary.functions.map((f) => [f.name, f.selfMs])).toEqual([
      ['sign /x/jws.ts:1', 30],
      ['handler /x/token.ts:1', 10],
    ]);
    expect(summary.inclusive.find((f) => f.name.startsWith('handler'))).toMatchObject({ selfMs: 40, share: 1 });
  });
});
