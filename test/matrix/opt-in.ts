/**
 * Scenarios of settings the default reference leaves off (skipped there with the reason), and
 * the reference options that turn them on; security-bcp.test.ts runs them so.
 */
import type { ProfileName } from '../../harness/model/results.ts';
import type { FlawName, ReferenceOptions } from '../../reference/index.ts';

/** The reference the MCP scenarios run against: `serve --mcp --registration --cimd-allow-loopback`. */
export const MCP_OPTIONS: ReferenceOptions = { mcp: true, registration: true, cimdAllowLoopback: true };

/**
 * The scenarios of issue 44 (MCP), each with the planted flaw it claims (null: cimd.code-flow, the positive control of
 * CIMD, claims none). The one list the opt-in, flaw, variant and end-to-end tests read.
 */
export const MCP_CLAIMS: Readonly<Record<string, FlawName | null>> = {
  'mcp.metadata-discovery': 'as-metadata-text-plain',
  'cimd.code-flow': null,
  'cimd.client-id-matches-url': 'cimd-client-id-unchecked',
  'cimd.redirect-uri-listed': 'cimd-redirect-unchecked',
  'cimd.bad-document': 'cimd-bad-document-accepted',
  'resource.code-flow-audience': 'resource-ignored-in-code-flow',
  'prm.metadata': 'prm-resource-mismatch',
  'prm.challenge': 'prm-challenge-without-metadata',
  'prm.audience-enforced': 'rs-audience-unchecked',
  'prm.query-token-refused': 'rs-query-token-accepted',
  'mcp.https-endpoints': 'registration-http-redirect-accepted',
};

/** The reference as `serve --fapi2`: the FAPI 2.0 Security Profile's server settings. */
export const FAPI2_OPTIONS: ReferenceOptions = { profile: 'fapi2' };

/**
 * The FAPI 2.0 scenarios of issue 45 that cite FAPI 2.0 alone (SP §5.4.1, MS §5.3.1), each with its planted flaw:
 * judged only under `--profile fapi2` (skipped elsewhere: no document of the profile requires them) and only on a
 * reference with its FAPI settings, the flaws switched under them.
 */
export const FAPI2_CLAIMS: Readonly<Record<string, FlawName>> = {
  'fapi2.rs256-refused': 'fapi2-accepts-rs256',
  'request-object.lifetime': 'request-object-long-lived',
};

/** The MCP flaws, each claimed by one scenario of MCP_CLAIMS. */
export const MCP_FLAWS: readonly FlawName[] = Object.values(MCP_CLAIMS).filter((f): f is FlawName => f !== null);

/** MCP scenarios that skip on the default reference (the other two judge every server: RFC 8707, https). */
const MCP_ONLY = Object.keys(MCP_CLAIMS).filter(
  (id) => id !== 'resource.code-flow-audience' && id !== 'mcp.https-endpoints',
);

/**
 * code.lifetime (issue 45) waits out a code's lifetime: it runs only when the run allows waits (`--with-waits`), on a
 * reference whose codes live 2 s (`serve --code-lifetime 2`, declared in its target config as codeLifetimeSeconds).
 */
export const SHORT_CODE_LIFETIME: ReferenceOptions = { lifetimes: { authorizationCode: 2 } };

/** Opt-in scenarios (OPT_IN) that also need the run to allow waits (RunSettings.withWaits, `run --with-waits`). */
export const OPT_IN_WAITS: ReadonlySet<string> = new Set(['code.lifetime']);

/** Flaws whose claimant runs only when the run allows waits: the matrix runs them, and their clean baseline, so. */
export const FLAW_WAITS: ReadonlySet<FlawName> = new Set(['code-never-expires']);

export const OPT_IN: Readonly<Record<string, ReferenceOptions>> = {
  'par.required': { requirePushedAuthorizationRequests: true },
  // MCP discovery and CIMD (issue 44): the reference as `serve --mcp --registration --cimd-allow-loopback`.
  ...Object.fromEntries(MCP_ONLY.map((id) => [id, MCP_OPTIONS])),
  // FAPI 2.0 (issue 45): the reference as `serve --fapi2`.
  ...Object.fromEntries(Object.keys(FAPI2_CLAIMS).map((id) => [id, FAPI2_OPTIONS])),
  'code.lifetime': SHORT_CODE_LIFETIME,
};

/** Opt-in scenarios judged only in a profile other than spec: only an MCP revision binds the server to their rule. */
export const OPT_IN_PROFILES: Readonly<Record<string, ProfileName>> = {
  'prm.query-token-refused': 'mcp-2026-07-28',
  ...Object.fromEntries(Object.keys(FAPI2_CLAIMS).map((id) => [id, 'fapi2' as const])),
};

/** Flaws that show only on a reference with a setting on (the claimant skips without it). */
export const FLAW_OPTIONS: Partial<Record<FlawName, ReferenceOptions>> = {
  'par-not-enforced': { requirePushedAuthorizationRequests: true },
  // MCP (issue 44): `serve --mcp --registration --cimd-allow-loopback`; the claimants skip without it.
  ...Object.fromEntries(MCP_FLAWS.map((flaw) => [flaw, MCP_OPTIONS])),
  ...Object.fromEntries(Object.values(FAPI2_CLAIMS).map((flaw) => [flaw, FAPI2_OPTIONS])),
  'code-never-expires': SHORT_CODE_LIFETIME,
};

/**
 * Flaws that break only a sentence of an MCP revision (no RFC binds the server to it), judged in that revision's
 * profile: with the spec profile their claimant has nothing that counts (skipped) or nothing to refuse.
 * - A query-string token (RFC 6750 §2.3 and RFC 9700 §4.3.2 bind the client; MCP's "Token Requirements" the server).
 * - An http redirect URI that is not loopback (MCP's "Communication Security").
 * - A challenge without resource_metadata: RFC 9728 §5 makes it a MAY, MCP 2025-06-18 a MUST; 2025-11-25 and later
 *   allow the well-known URL instead.
 */
export const FLAW_PROFILES: Partial<Record<FlawName, ProfileName>> = {
  'rs-query-token-accepted': 'mcp-2026-07-28',
  'registration-http-redirect-accepted': 'mcp-2026-07-28',
  'prm-challenge-without-metadata': 'mcp-2025-06-18',
  // FAPI 2.0 SP §5.4.1 and MS §5.3.1 count only in the fapi2 profile.
  ...Object.fromEntries(Object.values(FAPI2_CLAIMS).map((flaw) => [flaw, 'fapi2' as const])),
};
