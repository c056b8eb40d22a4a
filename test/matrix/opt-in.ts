/**
 * Scenarios of settings the default reference leaves off (skipped there with the reason), and
 * the reference options that turn them on; security-bcp.test.ts runs them so.
 */
import type { FlawName, ReferenceOptions } from '../../reference/index.ts';

export const OPT_IN: Readonly<Record<string, ReferenceOptions>> = {
  'par.required': { requirePushedAuthorizationRequests: true },
};

/** Flaws that show only on a reference with a setting on (the claimant skips without it). */
export const FLAW_OPTIONS: Partial<Record<FlawName, ReferenceOptions>> = {
  'par-not-enforced': { requirePushedAuthorizationRequests: true },
};
