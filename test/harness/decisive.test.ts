/**
 * The deciding exchange (HttpEvidence.decisive): the runner marks the last exchange before each
 * failed check, hard or soft; a scenario's own mark (ctx.evidence.markDecisive) is kept; a passing
 * scenario has none.
 */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../harness/config/load.ts';
import { CheckFailure } from '../../harness/model/failures.ts';
import { Redactor } from '../../harness/redact/redact.ts';
import type { HttpEvidence, ScenarioResult } from '../../harness/model/results.ts';
import { runScenarios } from '../../harness/run/runner.ts';
import { type ScenarioDefinition, defineScenario } from '../../harness/scenario/scenario.ts';
import { targetFromDiscovery } from '../../harness/target/target.ts';
import { planRun } from '../../harness/run/plan.ts';

const issuer = 'https://idp.test';
const fakeFetch: typeof fetch = async (input) =>
  new Response(`{"path":"${new URL(String(input)).pathname}"}`, {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });

function scenario(id: string, run: ScenarioDefinition['run']): ScenarioDefinition {
  return {
    id,
    title: `title of ${id}`,
    requirements: { rfc6749_4_1: { spec: 'RFC 6749', section: '4.1', level: 'MUST', party: 'server' } },
    severity: 'high',
    run,
  };
}

async function run(scenarios: ScenarioDefinition[]): Promise<Record<string, ScenarioResult>> {
  const config = validateConfig(
    { issuer, clients: { machine: { clientId: 'm', clientSecret: 'machine-secret-1' } } },
    {},
  );
  const target = targetFromDiscovery(issuer, `${issuer}/.well-known/openid-configuration`, {
    issuer,
    token_endpoint: `${issuer}/token`,
  });
  const outcome = await runScenarios(
    planRun({
      scenarios: scenarios.map((s) => defineScenario(s)),
      config,
      redactor: new Redactor(),
      seed: 1,
      fetch: fakeFetch,
    }),
    target,
  );
  return Object.fromEntries(outcome.results.map((r) => [r.id, r]));
}

const marked = (r: ScenarioResult) =>
  r.evidence
    .filter((e): e is HttpEvidence => e.kind === 'http' && !!e.decisive)
    .map((e) => new URL(e.request.url).pathname);

describe('the deciding exchange', () => {
  it(
    'is the last exchange before a failed check, soft or hard; a scenario may mark its own; a ' + 'pass has none',
    async () => {
      const byId = await run([
        scenario('d.hard', async (ctx) => {
          await ctx.http.get(`${issuer}/login`);
          await ctx.http.get(`${issuer}/token-1`);
          throw new CheckFailure('accepted');
        }),
        scenario('d.soft', async (ctx) => {
          await ctx.http.get(`${issuer}/a`);
          await ctx.softly(() => {
            throw new CheckFailure('first');
          });
          await ctx.http.get(`${issuer}/b`);
          await ctx.http.get(`${issuer}/c`);
          await ctx.softly(() => {
            throw new CheckFailure('second');
          });
        }),
        scenario('d.own', async (ctx) => {
          await ctx.http.get(`${issuer}/the-one`);
          ctx.evidence.markDecisive();
          await ctx.http.get(`${issuer}/cleanup`);
          throw new CheckFailure('judged on the first');
        }),
        scenario('d.pass', async (ctx) => {
          await ctx.http.get(`${issuer}/x`);
        }),
      ]);
      expect(byId['d.hard']!.status).toBe('failed');
      expect(marked(byId['d.hard']!)).toEqual(['/token-1']);
      expect(marked(byId['d.soft']!)).toEqual(['/a', '/c']);
      expect(marked(byId['d.own']!)).toEqual(['/the-one']);
      expect(marked(byId['d.pass']!)).toEqual([]);
      expect(byId['d.pass']!.evidence).toHaveLength(1);
    },
  );
});
