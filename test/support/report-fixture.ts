/**
 * Reports made up for the reporter tests: every group (security, interop and unclassified
 * failures, warnings, errors, expected failures, passed, skipped), a failure whose deciding
 * exchange follows a login page, redaction labels where secrets were, target-supplied markup and
 * control characters, a screenshot, a counterexample, planted flaws and a baseline comparison.
 * `bigReport(n)` pads it to n results the way a catalog run looks (mostly passes).
 */
import { summarize } from '../../harness/run/conformance.ts';
import type { HttpEvidence, Report, ScenarioResult } from '../../harness/model/results.ts';

export const NASTY = '<script>alert("x")</script> & \'q\' `tick` $(id) | *b* [l](javascript:x) \u0001 ]]> \u202e';
/** A secret value that must never appear in any report (the evidence carries its label only). */
export const SECRET = 's3cr3t-client-secret-value';

const req = {
  spec: 'RFC 6749',
  section: '4.1.2',
  level: 'MUST' as const,
  label: 'RFC 6749 §4.1.2',
  url: 'https://www.rfc-editor.org/rfc/rfc6749#section-4.1.2',
  applies: true,
};
const should = {
  ...req,
  level: 'SHOULD' as const,
  section: '10.4',
  label: 'RFC 6749 §10.4',
  url: 'https://www.rfc-editor.org/rfc/rfc6749#section-10.4',
};

export function result(
  id: string,
  status: ScenarioResult['status'],
  extra: Partial<ScenarioResult> = {},
): ScenarioResult {
  return {
    id,
    title: `Title of ${id}`,
    area: id.split('.')[0]!,
    status,
    severity: 'high',
    level: 'MUST',
    requirements: [req],
    catches: [],
    durationMs: 12,
    evidence: [],
    ...extra,
  };
}

const loginPage: HttpEvidence = {
  kind: 'http',
  label: 'login page',
  request: { method: 'GET', url: 'https://idp.example/login?client_id=web', headers: { accept: 'text/html' } },
  response: {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!doctype html><html><body><form>${'<p>filler</p>'.repeat(300)}</form></body></html>`,
  },
  durationMs: 3,
};

export const decidingToken: HttpEvidence = {
  kind: 'http',
  label: 'second redemption of the same code',
  decisive: true,
  request: {
    method: 'POST',
    url: 'https://idp.example/token',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: 'Basic [REDACTED:credentials]',
      'content-length': '99',
    },
    body:
      `grant_type=authorization_code&code=[REDACTED:code:2]&client_secret=[REDACTED:client_secret:1]&x=` +
      `${encodeURIComponent(NASTY)}`,
  },
  response: {
    status: 200,
    headers: { 'content-type': 'application/json', location: 'https://app.example/cb?code=[REDACTED:code:3]' },
    body: '{\n  "access_token": "[REDACTED:access_token:1]",\n  "token_type": "Bearer"\n}',
  },
  durationMs: 5,
};

/** The exchange without the decisive mark. */
function undecided(e: HttpEvidence): HttpEvidence {
  const { decisive: _d, ...rest } = e;
  return rest;
}

export function sampleResults(): ScenarioResult[] {
  return [
    result('code.happy-path', 'passed', { evidence: [loginPage] }),
    result('pkce.plain-rejected', 'failed', {
      failureKind: 'refused-wrongly',
      severity: 'medium',
      message: 'refused with 400 invalid_request; RFC 7636 §4.4.1 requires invalid_grant',
      evidence: [
        {
          ...decidingToken,
          decisive: true,
          response: { status: 400, headers: {}, body: '{"error":"invalid_request"}' },
        },
      ],
    }),
    result('code.single-use', 'failed', {
      failureKind: 'accepted',
      severity: 'critical',
      catches: ['code-reuse-allowed'],
      message: `A second redemption got HTTP 200 ${NASTY}; RFC 6749 §4.1.2 requires invalid_grant.`,
      evidence: [
        loginPage,
        { ...undecided(decidingToken), label: 'first redemption' },
        decidingToken,
        { kind: 'screenshot', label: 'consent page', path: 'screenshots/code.single-use/01-consent.png' },
        { kind: 'note', text: NASTY },
      ],
    }),
    result('redirect.exact-match', 'failed', {
      message: 'redirected to a near miss (unclassified: no failureKind)',
      evidence: [
        {
          kind: 'counterexample',
          seed: 9,
          runs: 50,
          value: '"https://app.example/cb/.."',
          replay: '--seed 42 --runs 50 --only redirect.exact-match',
        },
      ],
    }),
    result('refresh.rotation', 'warning', {
      level: 'SHOULD',
      requirements: [should],
      failureKind: 'accepted',
      severity: 'medium',
      message: 'no rotation',
      findings: [{ status: 'warning', message: 'no rotation' }],
    }),
    result('token.no-store', 'error', { message: 'the target stopped answering: connection refused' }),
    result('code.bound-to-client', 'failed', { failureKind: 'accepted', message: 'known gap', expected: true }),
    result('device.pending', 'skipped', {
      skipReason: 'needs the device client (clients.device in the target config)',
    }),
    result('discovery.document', 'passed', { unexpectedPass: true }),
  ];
}

/** A report around these results, its summary counted from them; no planted flaws, no baseline. */
export function baseReport(results: ScenarioResult[]): Report {
  return {
    schemaVersion: 1,
    tool: { name: 'idp-conformance', version: '0.1.0' },
    target: {
      issuer: 'https://idp.example',
      source: 'file',
      discoveryUrl: 'https://idp.example/.well-known/openid-configuration',
    },
    profile: 'spec',
    startedAt: '2026-01-02T03:04:05.678Z',
    durationMs: 1234,
    seed: 42,
    runs: 50,
    selection: { only: [], skip: [] },
    summary: summarize(results),
    results,
  };
}

export function sampleReport(results: ScenarioResult[] = sampleResults()): Report {
  return {
    ...baseReport(results),
    plantedFlaws: ['code-reuse-allowed', 'pkce-plain-allowed'],
    baseline: {
      source: 'old/report.json',
      startedAt: '2026-01-01T00:00:00.000Z',
      seed: 41,
      newFailures: [{ id: 'code.single-use', title: 'Title of code.single-use', from: 'passed', to: 'failed' }],
      fixed: [{ id: 'code.happy-path', title: 'Title of code.happy-path', from: 'failed', to: 'passed' }],
      changed: [{ id: 'refresh.rotation', title: 'Title of refresh.rotation', from: 'failed', to: 'warning' }],
    },
  };
}

/** A report of n results: the sample first in run order, then passes, as a catalog run looks. */
export function bigReport(n: number): Report {
  const sample = sampleResults();
  const results = [...sample];
  const areas = ['discovery', 'authorize', 'token', 'pkce', 'refresh', 'jwt', 'userinfo'];
  for (let i = results.length; i < n; i++) {
    results.splice(
      i % 3 === 0 ? 0 : results.length,
      0,
      result(`${areas[i % areas.length]}.check-${i}`, 'passed', { evidence: [loginPage, undecided(decidingToken)] }),
    );
  }
  return sampleReport(results);
}
