/**
 * Registers the tests of planted flaws: for each, a probe of the behaviour the flaw names. With
 * the flaw off the probe sees the clean behaviour; with it on, the flawed one, and the clean path
 * (clean-path.ts) fails exactly the checks the flaw names in DEVIATIONS, usually none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlawName, ReferenceOptions } from '../../reference/index.ts';
import { startReference, type ReferenceClient } from '../support/reference-client.ts';
import { DEVIATIONS, failedCleanChecks } from './clean-path.ts';

export interface FlawProbe {
  flaw: FlawName;
  /** What the named behaviour looks like on `idp`; must leave the server usable for others. */
  probe(idp: ReferenceClient): Promise<unknown>;
  clean: unknown;
  flawed: unknown;
}

/** `options`: what the clean server and every flawed one run with besides the legacy client (e.g. `mcp`). */
export function flawTests(probes: FlawProbe[], options: ReferenceOptions = {}): void {
  let clean: ReferenceClient;
  beforeAll(async () => {
    clean = await startReference({ legacyClient: true, ...options });
  });
  afterAll(() => clean.close());

  it('without flaws, the clean path holds', async () => {
    expect(await failedCleanChecks(clean)).toEqual([]);
  });

  describe.each(probes)('$flaw', ({ flaw, probe, clean: cleanOutcome, flawed }) => {
    it('off: the clean behaviour', async () => {
      expect(await probe(clean)).toEqual(cleanOutcome);
    });

    it('on: the behaviour it names changes, and nothing else', async () => {
      // A probe that sees the same with the flaw on as off could not show the flaw at all.
      expect(flawed, 'the flawed outcome differs from the clean one').not.toEqual(cleanOutcome);
      const idp = await startReference({ legacyClient: true, ...options, flaws: [flaw] });
      try {
        expect(await probe(idp)).toEqual(flawed);
        expect(await failedCleanChecks(idp)).toEqual(DEVIATIONS[flaw] ?? []);
      } finally {
        await idp.close();
      }
    });
  });
}
