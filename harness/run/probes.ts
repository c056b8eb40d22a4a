/**
 * The run's own probes, never reported, each in a context of its own with the run's time limit: the
 * capability probe (a code flow with offline_access looking for a refresh_token, once per client
 * role) and, where RFC 8414 metadata leaves it a guess, the code flow with openid that settles
 * whether the target is an OpenID provider or an OAuth 2.0 authorization server (settleKind).
 */
import { createContext } from '../context/context.ts';
import { HarnessError, ScenarioTimeoutError, describeError } from '../model/failures.ts';
import { describeOutcome } from '../flows/flows.ts';
import { Recorder } from '../http/recorder.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { Run, RunShared } from './setup.ts';
import { type Scenario, defineScenario } from '../scenario/scenario.ts';
import { GRANT, type TargetKind } from '../target/target.ts';

/** The synthetic scenario the capability probe runs as (never reported). */
const PROBE_SCENARIO: Scenario = defineScenario({
  id: 'harness.capability-probe',
  title: 'Looks for capabilities discovery does not advertise',
  requirements: { none: { spec: 'RFC 6749', section: '1', level: 'MAY', party: 'server' } },
  severity: 'info',
  run: () => undefined,
});

/** Step 4: the capability probe, memoized by role: a code flow with offline_access looking for a refresh_token. */
export function refreshProber(
  run: RunShared,
  probes = new Map<ClientRole, Promise<string | undefined>>(),
): Run['probe'] {
  return (role) => {
    let running = probes.get(role);
    if (!running) {
      running = probeRefresh(run, role);
      probes.set(role, running);
    }
    return running;
  };
}

/** A context for one of the run's own probes (never reported), with its time limit; `done` clears both. */
function probeContext(run: RunShared, what: string) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ScenarioTimeoutError(`${what} timed out`)), run.plan.timeoutMs);
  const { ctx, dispose } = createContext({
    run,
    scenario: PROBE_SCENARIO,
    level: 'MUST',
    requirements: [],
    seed: run.plan.seed,
    recorder: new Recorder(run.plan.redactor),
    signal: controller.signal,
    statusOf: () => 'failed',
    declared: () => {
      throw new HarnessError(`${what} cites no requirement`);
    },
  });
  return {
    ctx,
    async done() {
      clearTimeout(timer);
      await dispose();
    },
  };
}

async function probeRefresh(run: RunShared, role: ClientRole): Promise<string | undefined> {
  const { ctx, done } = probeContext(run, 'the refresh probe');
  try {
    const oidc = run.target.kind.protocol === 'oidc' ? ['openid'] : [];
    const scopes = [...run.clients[role]!.scope.split(' ').filter(Boolean), ...oidc, 'offline_access'];
    const scope = [...new Set(scopes)].join(' ');
    const { tokens } = await ctx.flows.tokens(role, { scope, params: { prompt: 'consent' } });
    if (!tokens.refresh_token)
      return `a code flow as the ${role} client with offline_access returned no refresh_token either`;
    return undefined;
  } catch (error) {
    return `a code flow as the ${role} client to look for a refresh_token did not complete: ${describeError(error)}`;
  } finally {
    await done();
  }
}

/**
 * What the target is, where its RFC 8414 metadata left it a guess (target.ts kindOf), settled by behaviour before any
 * scenario is gated: one code flow with the openid scope. An id_token in the token response: an OpenID provider;
 * the openid scope refused (invalid_scope) or tokens without an id_token: an OAuth 2.0 authorization server.
 * A flow that cannot complete (or no user, no code-flow client) leaves the guess, and the reason joins the kind's why.
 * Returns the kind the plan is to hold (planTarget), undefined when the one planned stands; changes nothing itself.
 */
export async function settleKind(run: RunShared): Promise<TargetKind | undefined> {
  const { target } = run;
  const { config } = run.plan;
  const { kind } = target;
  // Only RFC 8414 metadata leaves it open: OIDC Discovery metadata (or none) keeps the OpenID provider it always was.
  if (kind.by !== 'guess' || target.metadataKind !== 'rfc8414') return undefined;
  if (!config.user || !target.endpoints.authorization || !target.endpoints.token) return undefined;
  const role = (['confidential', 'public', 'confidential2'] as const).find((r) => run.clients[r]?.redirectUri);
  if (!role) return undefined;
  const { ctx, done } = probeContext(run, 'the code flow that asks for openid');
  const settled = (protocol: 'oauth2' | 'oidc', how: string): TargetKind => ({
    protocol,
    why: `${kind.why}; ${how}`,
    by: 'behaviour',
  });
  const guess = (why: string): TargetKind => ({ ...kind, why: `${kind.why} (${why})` });
  try {
    const scope = [...new Set(['openid', ...run.clients[role]!.scope.split(' ').filter(Boolean)])].join(' ');
    const pkce = ctx.pkce.create();
    const outcome = await ctx.authorize(
      role,
      { scope, code_challenge: pkce.challenge, code_challenge_method: pkce.method },
      { session: 'shared' },
    );
    if (outcome.kind === 'redirect' && outcome.params.error === 'invalid_scope')
      return settled('oauth2', `an authorization request with the openid scope was refused with invalid_scope`);
    if (outcome.kind !== 'redirect' || !outcome.params.code)
      return guess(`a code flow with openid ${describeOutcome(outcome)}`);
    const res = await ctx.http.token(
      ctx.client(role),
      {
        grant_type: GRANT.code,
        code: outcome.params.code,
        redirect_uri: outcome.request.redirect_uri,
        code_verifier: pkce.verifier,
      },
      { label: 'token request (does the code flow return an id_token)' },
    );
    if (res.status !== 200 || typeof res.body.access_token !== 'string')
      return guess(`the code from a flow with openid could not be redeemed: HTTP ${res.status}`);
    return typeof res.body.id_token === 'string'
      ? settled('oidc', `a code flow with the openid scope returned an id_token as the ${role} client`)
      : settled('oauth2', `a code flow with the openid scope returned no id_token as the ${role} client`);
  } catch (error) {
    return guess(`a code flow with openid did not complete: ${describeError(error)}`);
  } finally {
    await done();
  }
}
