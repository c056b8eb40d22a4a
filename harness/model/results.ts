/**
 * The result types: what a run produces and every reporter reads (docs/reports.md).
 * Types only — reporters import this file and nothing else from the harness.
 */
import type { ClientRole } from '../../protocol/client-roles.ts';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';
export type Status = 'passed' | 'failed' | 'warning' | 'skipped' | 'error';
export type ProfileName = 'spec' | 'rfc' | 'fapi2' | 'mcp-2025-06-18' | 'mcp-2025-11-25' | 'mcp-2026-07-28';

/** A requirement as it appears in a result: resolved against the profile, with its link. */
export interface ResolvedRequirement {
  spec: string;
  section: string;
  level: Level;
  /** Whom the sentence binds: only a server rule can fail the target (a client rule is context). */
  party?: 'server' | 'client';
  /** The name the scenario declared it under (what checks cite as `per`). */
  key?: string;
  /** Where the sentence is; absent when the document has no public address. */
  url?: string;
  /** Human label, e.g. "RFC 7636 §4.6" or "SPEC › Token endpoint". */
  label: string;
  /** Whether the run's profile counts this document (and the roles exercised match). */
  applies: boolean;
  note?: string;
}

export interface HttpMessageRecord {
  headers: Record<string, string>;
  body?: string;
}

export interface HttpEvidence {
  kind: 'http';
  label?: string;
  request: HttpMessageRecord & { method: string; url: string };
  response?: HttpMessageRecord & { status: number };
  /** Transport failure (refused, timed out, aborted). */
  error?: string;
  durationMs: number;
  /**
   * The exchange that decided the verdict: the runner marks the last exchange before each failed
   * check (hard or soft); a scenario may mark one itself when it adds evidence. Reports open it,
   * fold the others, and build the reproduce block from it.
   */
  decisive?: true;
}

export interface ScreenshotEvidence {
  kind: 'screenshot';
  label?: string;
  path: string;
}

export interface CounterexampleEvidence {
  kind: 'counterexample';
  label?: string;
  seed: number;
  runs: number;
  /** fast-check's replay path. */
  path?: string;
  /** The shrunk counterexample, rendered as text. */
  value: string;
  /** The command line that replays it, e.g. `--seed 42 --only redirect.exact-match`. */
  replay: string;
}

export interface NoteEvidence {
  kind: 'note';
  label?: string;
  text: string;
}

export type Evidence = HttpEvidence | ScreenshotEvidence | CounterexampleEvidence | NoteEvidence;

/**
 * How a failed check failed (docs/security.md): `accepted` — the attack or the bad request succeeded
 * (a security failure); `refused-wrongly` — refused, but with the wrong status, error code or
 * body (an interoperability failure). Both fail at MUST; reports lead with security failures.
 */
export type FailureKind = 'accepted' | 'refused-wrongly';

/**
 * The one list of the harness's stable codes (docs/reports.md, "Error codes"): match on them, not on the message.
 * ERROR_CODES say why a scenario ended in `error` (a result's `errorCode`); SIGNAL_CODES are thrown and carried by
 * their error but never an `error` result. Every error class (harness/model/failures.ts) carries one of them.
 */
export const ERROR_CODES = [
  /** The harness could not do its part (a missing endpoint, bad input to a helper). */
  'ERR_HARNESS',
  /** A step the scenario depends on (a sign-in, a token) did not work: "could not get as far as the check". */
  'ERR_PRECONDITION',
  /** The target refused a sound control request too: "could not judge". */
  'ERR_COULD_NOT_JUDGE',
  /** A request could not reach the target (refused, reset, DNS, TLS, timeout). */
  'ERR_TARGET_UNREACHABLE',
  /** The target answered HTTP 5xx where a verdict was needed. */
  'ERR_TARGET_SERVER_ERROR',
  /** The target sent the harness off its origin (a URL the origin policy refuses): refused, never sent. */
  'ERR_TARGET_OFF_ORIGIN',
  /** A response of the target exceeded a resource limit (body size, JSON depth). */
  'ERR_TARGET_LIMIT',
  /** The scenario ran out of its time limit. */
  'ERR_SCENARIO_TIMEOUT',
  /** Chromium was needed and is not there, or failed under the scenario. */
  'ERR_BROWSER',
  /** The run stopped before any scenario could judge (discovery unusable, the target never answered). */
  'ERR_RUN_STOPPED',
  /** Anything else thrown: a bug in the scenario or the harness. */
  'ERR_UNEXPECTED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const SIGNAL_CODES = [
  /** A CheckFailure: the target broke the rule (a `failed` or `warning` result). */
  'ERR_CHECK_FAILED',
  /** ctx.skip(): the scenario does not apply (a `skipped` result). */
  'ERR_SKIP',
  /** A ConfigError: the target config is invalid (the command exits 2). */
  'ERR_CONFIG',
] as const;

export type SignalCode = (typeof SIGNAL_CODES)[number];

/** Every stable code: the one list an error's `code` is read against. */
export const CODES: readonly (ErrorCode | SignalCode)[] = [...ERROR_CODES, ...SIGNAL_CODES];

export type Code = ErrorCode | SignalCode;

export interface ScenarioResult {
  id: string;
  title: string;
  area: string;
  status: Status;
  severity: Severity;
  /** The strictest level among the profile's documents the scenario cites (absent when none). */
  level?: Level;
  requirements: ResolvedRequirement[];
  /** Planted flaws the scenario is meant to catch. */
  catches: string[];
  durationMs: number;
  /** One sentence: what the target did and what the spec requires (or what went wrong). */
  message?: string;
  /** Further failures recorded without stopping the scenario (soft checks). */
  findings?: Finding[];
  evidence: Evidence[];
  skipReason?: string;
  /** For an `error` result: why, as a stable code. */
  errorCode?: ErrorCode;
  /** For a failed or warning result: security (`accepted`) or interop (`refused-wrongly`). */
  failureKind?: FailureKind;
  /** Listed in the config's expectedFailures: a failure or warning here does not fail the run. */
  expected?: boolean;
  /** Listed in expectedFailures but passed: the list can shrink. */
  unexpectedPass?: boolean;
  log?: string[];
  /** The login walks it made, with the driver(s) each used (absent when it made none). */
  walks?: LoginWalk[];
}

/**
 * One login walk of a scenario (an authorization or a device activation): the driver the config chose, the actuators
 * it used in order (`http`: requests with a cookie jar; `browser`: Chromium), and for a walk that went on in the
 * browser, the page it did so on and why (docs/login.md).
 */
export interface LoginWalk {
  kind: 'authorization' | 'device activation';
  driver: 'form' | 'browser' | 'auto';
  used: ('http' | 'browser')[];
  switched?: {
    /** The page's URL without its query. */
    url: string;
    /** What the page was read as (login, consent, …) and its title. */
    page: string;
    reason: string;
    /** An earlier walk needed the browser on this page: this one went to it at once. */
    remembered?: true;
  };
}

export interface Finding {
  status: 'failed' | 'warning';
  message: string;
  failureKind?: FailureKind;
  requirement?: string;
}

export interface Summary {
  total: number;
  passed: number;
  failed: number;
  warnings: number;
  skipped: number;
  errors: number;
  /** Failures and warnings of scenarios listed in expectedFailures (also counted above). */
  expectedFailures: number;
  /** Failed results whose failureKind is `accepted` (security) and `refused-wrongly` (interop). */
  security?: number;
  interop?: number;
}

/**
 * Whether the run judged the target at all (docs/security.md). Not when errors outnumber the judged
 * results, or when every scenario that needs a login errored: then the exit code is 1 whatever
 * else happened, and `reason` says why the run was not a verdict.
 */
export interface Verdict {
  judged: boolean;
  reason?: string;
  /**
   * The run stopped before every scenario was judged (harness/http/traffic.ts): the target declared unreachable, or the
   * run's time limit (--max-run-ms) reached. The command line exits 3.
   */
  stopped?: 'unreachable' | 'time-limit';
}

export interface Report {
  schemaVersion: 1;
  tool: { name: string; version: string };
  target: {
    issuer: string;
    source: 'file' | 'issuer-url' | 'embedded' | 'object';
    discoveryUrl: string;
    /** What the target was taken for (an OpenID provider or an OAuth 2.0 authorization server) and why. */
    kind?: { protocol: 'oauth2' | 'oidc'; why: string; by: 'config' | 'metadata' | 'behaviour' | 'guess' };
  };
  profile: ProfileName;
  startedAt: string;
  durationMs: number;
  seed: number;
  runs: number;
  selection: { only: string[]; skip: string[]; shard?: { index: number; total: number } };
  /** Set by `merge-reports`: the shard reports this one was merged from. */
  mergedFrom?: { shard?: { index: number; total: number }; startedAt: string; durationMs: number }[];
  summary: Summary;
  results: ScenarioResult[];
  /** Planted flaws the target was started with (the embedded reference), named in every report. */
  plantedFlaws?: string[];
  /** The config's discoveryOverrides merged over the fetched discovery document. */
  discoveryOverrides?: Record<string, unknown>;
  /** Set by `--baseline FILE`: how the verdicts differ from an earlier run's report.json. */
  baseline?: BaselineComparison;
  /** Things the run noticed about its own input (e.g. an unknown id in expectedFailures). */
  notices?: string[];
  /** Whether the run was a verdict on the target (absent on reports from before it was computed). */
  verdict?: Verdict;
  /** The target stopped answering mid-run and never answered again: the one finding reports lead with. */
  outage?: Outage;
  /** The clients the harness registered for the run (registration.enabled), and any it could not delete. */
  registration?: RegistrationSummary;
}

/** The run's dynamic client registrations (RFC 7591): what was registered, refused, and left behind. */
export interface RegistrationSummary {
  /** The registration endpoint used. */
  endpoint: string;
  /** The clients the harness registered, by role (all deleted at the end unless in notDeleted). */
  registered: { role: ClientRole; clientId: string }[];
  /** Roles the IdP refused to register: their scenarios were skipped with this reason. */
  refused: { role: ClientRole; reason: string }[];
  /** Registered clients the harness could not delete (RFC 7592 §2.3): delete them by hand. */
  notDeleted: { role: ClientRole; clientId: string; reason: string }[];
}

/** The target stopped answering: when, after how many requests, what was sent last, and what the transport said. */
export interface Outage {
  /** When the first request went unanswered (ISO 8601). */
  at: string;
  /** Requests the scenarios had sent to the target before that one (discovery not counted). */
  afterRequests: number;
  /** The request that went unanswered: method, URL without its query, and label. */
  lastSent: string;
  /** What the transport said (e.g. "connection refused (ECONNREFUSED)"). */
  cause: string;
  /** The scenarios that could not be judged because of it (they errored: "the target stopped answering"). */
  scenarios?: string[];
}

/** A scenario whose verdict differs from the baseline run's (`absent`: not in that run). */
export interface VerdictChange {
  id: string;
  title: string;
  from: Status | 'absent';
  to: Status;
}

export interface BaselineComparison {
  /** The earlier report as named on the command line. */
  source: string;
  /** When the earlier run started, and its seed (from its report.json). */
  startedAt?: string;
  seed?: number;
  /** Failed or warning now; passed, skipped, errored or absent before. */
  newFailures: VerdictChange[];
  /** Failed or warning before; passed now. */
  fixed: VerdictChange[];
  /** Every other change of status (e.g. failed → warning, passed → error). */
  changed: VerdictChange[];
}
