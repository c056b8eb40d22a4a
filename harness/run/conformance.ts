/**
 * One whole run: the plan → discovery → runner → the Report (docs/ARCHITECTURE.md, "How a run proceeds"). The caller
 * hands in the scenarios (the catalog lives in suites/, which the harness never imports).
 */
import { shortSecretWarnings } from '../config/load.ts';
import { PACKAGE } from './package-info.ts';
import type { Outage, Report, ScenarioResult, Summary } from '../model/results.ts';
import type { RunPlan } from './plan.ts';
import type { Selection } from './selection.ts';
import type { RunOutcome } from './setup.ts';
import { runScenarios } from './runner.ts';
import { resolveTarget } from '../target/discovery.ts';
import { registerClients } from '../registration/session.ts';
import type { RegistrationSummary } from '../model/results.ts';
import { RunStop } from '../http/traffic.ts';
import type { TargetConfig } from '../config/schema.ts';
import type { Target } from '../target/target.ts';
import { cimdClients, openRunCimd } from './cimd.ts';
import { assessVerdict } from './verdict.ts';

export const TOOL = { name: PACKAGE.name, version: PACKAGE.version } as const;

export function summarize(results: readonly ScenarioResult[]): Summary {
  const count = (status: ScenarioResult['status']) => results.filter((r) => r.status === status).length;
  return {
    total: results.length,
    passed: count('passed'),
    failed: count('failed'),
    warnings: count('warning'),
    skipped: count('skipped'),
    errors: count('error'),
    expectedFailures: results.filter((r) => r.expected).length,
    security: results.filter((r) => r.status === 'failed' && r.failureKind === 'accepted').length,
    interop: results.filter((r) => r.status === 'failed' && r.failureKind === 'refused-wrongly').length,
  };
}

/**
 * Run the plan's scenarios against the target its config names. Throws ConfigError before any request
 * and TargetUnreachableError when discovery cannot be reached at all.
 */
export async function runSuite(plan: RunPlan): Promise<Report> {
  // The run's stop (harness/http/traffic.ts): the target declared unreachable, or the time limit from now.
  const stop = new RunStop();
  stop.limit(plan.maxRunMs);
  try {
    return await runStoppable(plan, stop);
  } finally {
    stop.dispose();
  }
}

async function runStoppable(plan: RunPlan, stop: RunStop): Promise<Report> {
  const { config, redactor } = plan;
  const startedAt = new Date();
  const started = performance.now();
  const target = await resolveTarget(config, redactor, plan);
  // The roles of every scenario --only and --skip select, whatever the shard: each shard registers the same clients.
  const needed = plan.selection.matching.flatMap((s) => [
    ...(s.requires?.roles ?? []),
    ...(s.requires?.optionalRoles ?? []),
  ]);
  const cimd = await openRunCimd(config, target, plan.profile);
  let outcome: RunOutcome;
  let registration: RegistrationSummary | undefined;
  let session: Awaited<ReturnType<typeof registerClients>>;
  const documentNotices: string[] = [];
  try {
    const byDocument = await cimdClients(config, target, cimd, needed, plan.profile);
    for (const [role, entry] of byDocument)
      documentNotices.push(
        `the ${role} client was identified by a Client ID Metadata Document of the harness's, ${entry.clientId} ` +
          '(served during the run only)',
      );
    if (byDocument.size)
      plan.registrationLog?.(
        `registration: ${[...byDocument.keys()].join(', ')} identified by Client ID Metadata Documents at ` +
          `${cimd?.baseUrl} (draft-ietf-oauth-client-id-metadata-document)`,
      );
    const withDocuments: TargetConfig = byDocument.size
      ? { ...config, clients: { ...config.clients, ...Object.fromEntries(byDocument) } }
      : config;
    session = (await skipsRegistration(plan, target, byDocument.size))
      ? undefined
      : await registerClients({
          config: withDocuments,
          target,
          redactor,
          needed,
          log: plan.registrationLog,
          guardSignals: plan.guardSignals,
          requestTimeoutMs: plan.requestTimeoutMs,
          fetch: plan.fetch,
        });
    try {
      const registered =
        session || byDocument.size
          ? {
              config: session ? session.withClients(withDocuments) : withDocuments,
              roles: [...(session?.registeredRoles ?? []), ...byDocument.keys()],
              refused: session?.refused ?? new Map(),
              guessedScopes: new Set([...(session?.guessedScopes ?? []), ...byDocument.keys()]),
            }
          : undefined;
      outcome = await runScenarios(plan, target, registered, stop, cimd);
    } finally {
      // Whatever ended the scenarios (their end, a failure, a timeout): the registered clients are deleted.
      registration = await session?.summary();
    }
  } finally {
    // The documents are served during the run only.
    await cimd?.close();
  }
  const outage = outageOf(outcome);
  const notices = [
    ...(registration?.notDeleted ?? []).map(
      (n) =>
        `the registered ${n.role} client (client_id ${n.clientId}) could not be deleted: ${n.reason}; delete it ` +
        "in the IdP's administration",
    ),
    ...(outage ? [outageNotice(outage)] : []),
    ...(plan.notices ?? []),
    ...documentNotices,
    ...shortSecretWarnings(config),
    ...(target.discoveryNotices ?? []),
    ...outcome.notices,
  ];
  return {
    schemaVersion: 1,
    tool: TOOL,
    target: {
      issuer: config.issuer,
      source: plan.source,
      discoveryUrl: target.discoveryUrl,
      kind: { ...outcome.plan.target.kind },
    },
    profile: plan.profile,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    seed: plan.seed,
    runs: plan.runs,
    selection: selectionReport(plan),
    summary: summarize(outcome.results),
    results: outcome.results,
    ...(plan.plantedFlaws.length ? { plantedFlaws: [...plan.plantedFlaws] } : {}),
    ...(target.discoveryOverrides ? { discoveryOverrides: target.discoveryOverrides } : {}),
    ...(notices.length ? { notices } : {}),
    ...(outage ? { outage } : {}),
    ...(registration ? { registration } : {}),
    verdict: stop.error
      ? { judged: false, reason: redactor.text(stop.error.message), stopped: stopKind(stop.error.code) }
      : assessVerdict(outcome.results, new Set(outcome.needsLogin)),
  };
}

/** The report's selection: what was asked (the scenarios it selected are the results). */
function selectionReport({ selection }: RunPlan): Report['selection'] {
  const { only, skip, shard } = selection;
  return { only: [...only], skip: [...skip], ...(shard ? { shard: { ...shard } } : {}) };
}

const stopKind = (code: string) => (code === 'ERR_TARGET_UNREACHABLE' ? 'unreachable' : 'time-limit');

/** The run's outage with the scenarios it left unjudged; none when no scenario errored for it. */
function outageOf(outcome: RunOutcome): Outage | undefined {
  if (!outcome.outage) return undefined;
  const scenarios = outcome.results
    .filter((r) => r.status === 'error' && r.errorCode === 'ERR_TARGET_UNREACHABLE')
    .map((r) => r.id);
  return scenarios.length ? { ...outcome.outage, scenarios } : undefined;
}

/** The one sentence reports lead with. */
export function outageNotice(o: Outage): string {
  const n = o.scenarios?.length ?? 0;
  return (
    `the target stopped answering at ${o.at}, after ${o.afterRequests} requests of the scenarios: ${o.lastSent} got ` +
    `${o.cause}, and nothing answered after it; ${n} scenario${n === 1 ? '' : 's'} could not be judged because ` +
    `of it (${(o.scenarios ?? []).join(', ')})`
  );
}

/**
 * The report of a run that stopped before it could judge anything (discovery unusable, the target never answering):
 * its one result is the stop, an `error` whose message is the reason, and the verdict says it is not one. Every
 * requested format is still written, so a CI job that uploads them shows why.
 */
export function stoppedRunReport(options: {
  issuer: string;
  source: Report['target']['source'];
  reason: string;
  startedAt: Date;
  /** The run's settings: its seed, property runs, profile and selection. */
  plan: Pick<RunPlan, 'seed' | 'runs' | 'profile'> & { selection: Pick<Selection, 'only' | 'skip'> };
}): Report {
  const { plan } = options;
  const durationMs = Math.max(0, Date.now() - options.startedAt.getTime());
  const stop: ScenarioResult = {
    id: 'run.stopped',
    title: 'The run reached the point where scenarios judge the target',
    area: 'run',
    status: 'error',
    severity: 'info',
    requirements: [],
    catches: [],
    durationMs,
    message: options.reason,
    errorCode: 'ERR_RUN_STOPPED',
    evidence: [],
  };
  const results = [stop];
  return {
    schemaVersion: 1,
    tool: TOOL,
    target: { issuer: options.issuer, source: options.source, discoveryUrl: '' },
    profile: plan.profile,
    startedAt: options.startedAt.toISOString(),
    durationMs,
    seed: plan.seed,
    runs: plan.runs,
    selection: { only: [...plan.selection.only], skip: [...plan.selection.skip] },
    summary: summarize(results),
    results,
    notices: [`the run stopped before judging the target: ${options.reason}`],
    verdict: { judged: false, reason: `the run stopped before judging the target: ${options.reason}` },
  };
}

/**
 * An MCP profile turns registration on by itself; at an authorization server without a registration endpoint it
 * registers nothing then (the documents, if any, and the config's clients are the run's), where --register would stop
 * the run with a config error naming registration.endpoint.
 */
async function skipsRegistration(plan: RunPlan, target: Target, byDocument: number): Promise<boolean> {
  const { config } = plan;
  if (!plan.profile.startsWith('mcp-') || !config.registration?.enabled) return false;
  if (config.registration.endpoint || target.endpoints.registration) return false;
  plan.registrationLog?.(
    'registration: the authorization server advertises no registration_endpoint (RFC 7591); ' +
      (byDocument ? 'only the clients identified by documents are used' : 'no client is registered'),
  );
  return true;
}
