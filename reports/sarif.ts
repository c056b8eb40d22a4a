/**
 * report.sarif (`--format sarif`): SARIF 2.1.0 for GitHub code scanning and other dashboards.
 * A rule per scenario (help URI = its requirement's link; default level from its level: MUST →
 * error, SHOULD → warning, MAY → note; `security-severity` from its severity, the property
 * GitHub ranks security alerts by), a result per failure or warning with the deciding exchange
 * as webRequest/webResponse, the replay options and the curl command in its properties, and
 * errors as tool execution notifications. With --baseline each result carries its baselineState.
 * A web target has no source file: a result's location is the endpoint it failed at as a relative
 * path (host and path), and a partial fingerprint (issuer + scenario id) keeps alerts stable.
 */
import { createHash } from 'node:crypto';
import type { Level, Report, ScenarioResult, Severity } from '../harness/model/results.ts';
import { kindLabel, orderResults, plantedFlawsLine, requirementsText, resultDetail } from './format.ts';
import { curlCommand, decidingExchange, replayCommand } from './reproduce.ts';

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

/** GitHub: over 9.0 critical, 7.0–8.9 high, 4.0–6.9 medium, 0.1–3.9 low. */
const SECURITY_SEVERITY: Record<Severity, string | undefined> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: undefined,
};
const SARIF_LEVEL: Record<Level, 'error' | 'warning' | 'note'> = { MUST: 'error', SHOULD: 'warning', MAY: 'note' };

function helpUri(r: ScenarioResult): string | undefined {
  const links = r.requirements.filter((q) => q.applies && q.url).map((q) => q.url!);
  return links.find((u) => u.startsWith('https:')) ?? links[0];
}

function rule(r: ScenarioResult) {
  const uri = helpUri(r);
  const severity = SECURITY_SEVERITY[r.severity];
  const reqs = requirementsText(r) || r.requirements.map((q) => `${q.level} ${q.label}`).join('; ');
  return {
    id: r.id,
    name: r.id.replace(/(^|[.-])([a-z0-9])/g, (_m, _s, c: string) => c.toUpperCase()),
    shortDescription: { text: r.title },
    fullDescription: { text: `${r.title} (${reqs})` },
    ...(uri ? { helpUri: uri } : {}),
    help: {
      text: `${r.title}\nRequirements: ${reqs}\n${r.requirements
        .filter((q) => q.url)
        .map((q) => `${q.label}: ${q.url}`)
        .join('\n')}`,
    },
    defaultConfiguration: r.level ? { level: SARIF_LEVEL[r.level] } : { enabled: false },
    properties: {
      tags: ['security', 'oauth', r.area],
      precision: 'very-high',
      ...(severity ? { 'security-severity': severity } : {}),
      severity: r.severity,
    },
  };
}

function fingerprint(report: Report, r: ScenarioResult): string {
  return createHash('sha256').update(`${report.target.issuer}\n${r.id}`).digest('hex').slice(0, 32);
}

/**
 * Where a result happened, as a relative path: the endpoint's host and path (`idp.example/token`,
 * a port as `_8443`). GitHub code scanning rejects an artifact URI whose scheme is not the
 * checkout's (`file`) and does not read originalUriBaseIds, so a web target's URL cannot be the
 * location as it is; the full URL is in webRequest.target. The query is left out: it may carry
 * redacted values and would split one finding into many.
 */
function location(report: Report, r: ScenarioResult) {
  const deciding = decidingExchange(r)?.evidence;
  let url: URL | undefined;
  for (const candidate of [deciding?.request.url, report.target.discoveryUrl, report.target.issuer]) {
    try {
      url = new URL(candidate ?? '');
      break;
    } catch {
      // try the next
    }
  }
  const uri = url
    ? `${url.hostname}${url.port ? `_${url.port}` : ''}${url.pathname}`
        .split('/')
        .map((s) => encodeURIComponent(decodeSafe(s)))
        .join('/')
    : 'target';
  return [
    {
      physicalLocation: { artifactLocation: { uri } },
      logicalLocations: [{ name: r.id, fullyQualifiedName: `${r.area}/${r.id}`, kind: 'test' }],
    },
  ];
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function baselineState(report: Report, r: ScenarioResult): 'new' | 'unchanged' | 'updated' | undefined {
  const b = report.baseline;
  if (!b) return undefined;
  if (b.newFailures.some((c) => c.id === r.id)) return 'new';
  if (b.changed.some((c) => c.id === r.id)) return 'updated';
  return 'unchanged';
}

function sarifResult(report: Report, r: ScenarioResult, ruleIndex: number) {
  const decided = decidingExchange(r);
  const e = decided?.evidence;
  const kind = kindLabel(r);
  const state = baselineState(report, r);
  const level = r.status === 'warning' ? (r.level === 'MAY' ? 'note' : 'warning') : 'error';
  return {
    ruleId: r.id,
    ruleIndex,
    level,
    kind: 'fail',
    message: { text: `${kind ? `[${kind}] ` : ''}${resultDetail(r) || r.title}` },
    locations: location(report, r),
    partialFingerprints: { 'idpConformanceScenario/v1': fingerprint(report, r) },
    ...(state ? { baselineState: state } : {}),
    ...(r.expected
      ? {
          suppressions: [
            { kind: 'external', status: 'accepted', justification: "listed in the target config's expectedFailures" },
          ],
        }
      : {}),
    ...(e
      ? {
          webRequest: {
            protocol: 'HTTP',
            version: '1.1',
            target: e.request.url,
            method: e.request.method,
            headers: e.request.headers,
            ...(e.request.body ? { body: { text: e.request.body } } : {}),
          },
          ...(e.response
            ? {
                webResponse: {
                  protocol: 'HTTP',
                  version: '1.1',
                  statusCode: e.response.status,
                  headers: e.response.headers,
                  ...(e.response.body ? { body: { text: e.response.body } } : {}),
                },
              }
            : { webResponse: { noResponseReceived: true } }),
        }
      : {}),
    properties: {
      status: r.status,
      severity: r.severity,
      ...(r.level ? { requirementLevel: r.level } : {}),
      ...(kind ? { failureKind: r.failureKind } : {}),
      replay: replayCommand(report, r),
      ...(e ? { curl: curlCommand(e).command } : {}),
      ...(r.findings?.length ? { findings: r.findings.map((f) => `${f.status}: ${f.message}`) } : {}),
    },
  };
}

export function renderSarif(report: Report): string {
  const ordered = orderResults(report.results);
  const rules = report.results.map(rule);
  const index = new Map(report.results.map((r, i) => [r.id, i]));
  const results = ordered
    .filter((r) => r.status === 'failed' || r.status === 'warning')
    .map((r) => sarifResult(report, r, index.get(r.id)!));
  const errors = ordered.filter((r) => r.status === 'error');
  const flaws = plantedFlawsLine(report);
  const started = new Date(report.startedAt);
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: report.tool.name,
            version: report.tool.version,
            rules,
          },
        },
        invocations: [
          {
            executionSuccessful: true,
            startTimeUtc: started.toISOString(),
            endTimeUtc: new Date(started.getTime() + report.durationMs).toISOString(),
            toolExecutionNotifications: [
              ...(flaws ? [{ level: 'warning', message: { text: flaws } }] : []),
              ...errors.map((r) => ({
                level: 'error',
                message: { text: `${r.id}: ${r.message ?? 'error'}` },
                descriptor: { id: r.id, index: index.get(r.id)! },
                ...(r.errorCode ? { properties: { errorCode: r.errorCode } } : {}),
              })),
              ...(report.notices ?? []).map((n) => ({ level: 'note', message: { text: n } })),
            ],
          },
        ],
        automationDetails: { id: `idp-conformance/${report.profile}/` },
        properties: {
          target: report.target.issuer,
          profile: report.profile,
          ...(report.target.kind ? { targetKind: report.target.kind } : {}),
          seed: report.seed,
          runs: report.runs,
          plantedFlaws: report.plantedFlaws ?? [],
          ...(report.baseline ? { baseline: report.baseline } : {}),
        },
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}
