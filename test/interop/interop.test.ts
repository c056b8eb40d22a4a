/**
 * The interop matrix as a test: every IdP module under interop/ whose Debian packages are installed
 * (or installable: as root, e.g. in CI after .ci/run) is started, run through the whole catalog,
 * and every scenario's status is compared with interop/expectations/<idp>.json. A verdict that
 * changed fails the test and names the scenario (and what the run said). An IdP that cannot run
 * here (module not merged, packages missing and not root) is skipped with the reason.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import type { Report } from '../../harness/model/results.ts';
import {
  IDPS,
  REPORTS_DIR,
  compare,
  describeDifference,
  loadIdp,
  readExpectations,
  recordCommand,
  runIdp,
  unlisted,
} from '../../interop/matrix.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

/** Install (apt-get), start, the whole catalog, stop: minutes on a loaded machine. */
const RUN_TIMEOUT_MS = 20 * 60_000;

for (const { name } of IDPS) {
  describe(`interop: ${name}`, () => {
    let report: Report | undefined;
    let unavailable: string | undefined;

    beforeAll(async () => {
      const idp = await loadIdp(name);
      if (!idp) {
        unavailable = `no interop module for ${name} in this checkout`;
        return;
      }
      try {
        await idp.install();
      } catch (error) {
        unavailable = (error as Error).message;
        return;
      }
      ({ report } = await runIdp(idp, { reportDir: path.join(REPORTS_DIR, name) }));
    }, RUN_TIMEOUT_MS);

    it('runs the whole catalog', (ctx) => {
      if (unavailable) ctx.skip(unavailable);
      expect(report!.results.map((r) => r.id).sort()).toEqual(BUILT_IN_SCENARIOS.map((s) => s.id).sort());
    });

    it('gives every scenario the verdict its expectations record', async (ctx) => {
      if (unavailable) ctx.skip(unavailable);
      const expectations = await readExpectations(name);
      expect(
        expectations,
        `interop/expectations/${name}.json is missing: npm run interop -- --idp ${name} --update`,
      ).toBeDefined();
      const diffs = compare(expectations!, report!);
      const missing = unlisted(diffs);
      const hint = missing.length ? `record the unlisted ones: ${recordCommand(name, missing)}` : undefined;
      expect(diffs.map(describeDifference), hint).toEqual([]);
    });
  });
}
