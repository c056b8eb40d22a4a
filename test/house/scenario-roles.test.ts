/**
 * A selection gives the verdict of the full run (issue 39, fault 6): a zero-config run registers the roles its
 * selected scenarios declare (`requires.roles`, `optionalRoles`), so every client role a scenario's source can reach —
 * by name, or through a shared check that chooses among the configured clients — must be declared. Otherwise
 * `--only` registers fewer clients than the full run and the scenario skips, or judges another client, where the full
 * run judged.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLIENT_ROLES } from '../../harness/model/requirements.ts';
import type { Scenario } from '../../harness/scenario/scenario.ts';
import { BUILT_IN_SCENARIOS } from '../../suites/index.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CODE = ['public', 'confidential', 'confidential2'];
const TOKEN_PLACES = ['confidential', 'exchange', 'machine'];

/** The shared checks that choose a client among the configured ones, and the roles each may choose. */
const HELPERS: Record<string, readonly string[]> = {
  findClient: CODE,
  partyClient: CODE,
  clientPair: CODE,
  CODE_FLOW_ROLES: CODE,
  'Object.values(ctx.clients)': CODE,
  expectThirdPartyConsent: CODE,
  codeFlowClient: ['keyed', ...CODE],
  codeFlowTokens: ['keyed', ...CODE],
  pagesMet: ['device'],
  placesTakingToken: TOKEN_PLACES,
  expectRefusedEverywhere: TOKEN_PLACES,
  expectForgeriesRefused: TOKEN_PLACES,
  genuineJwtAccessToken: ['machine', ...CODE],
  tokenGrantsAvailable: [...CODE, 'machine'],
  tokenResponses: [...CODE, 'machine'],
};

const ROLE = CLIENT_ROLES.join('|');
/** A role named in a call (`ctx.client('public')`, `ctx.authorize('keyed', …)`, `flows.tokens('device')`, …). */
const NAMED = new RegExp(String.raw`\b(?:client|authorize|tokens|code|\w+Client|flows\.\w+)\(\s*'(${ROLE})'`, 'g');
const MEMBER = new RegExp(String.raw`ctx\.clients\.(${ROLE})\b`, 'g');

/** The roles a scenario's source can reach. */
function rolesReached(source: string): Set<string> {
  const reached = new Set<string>();
  for (const m of source.matchAll(NAMED)) reached.add(m[1]!);
  for (const m of source.matchAll(MEMBER)) reached.add(m[1]!);
  for (const [helper, roles] of Object.entries(HELPERS))
    if (source.includes(helper)) for (const r of roles) reached.add(r);
  return reached;
}

function undeclared(s: Scenario, source: string): string[] {
  const declared = new Set<string>([...(s.requires?.roles ?? []), ...(s.requires?.optionalRoles ?? [])]);
  return [...rolesReached(source)].filter((r) => !declared.has(r)).sort();
}

describe('scenarios declare every client role they can use', () => {
  it('holds on the built-in catalog', () => {
    const missing: string[] = [];
    let read = 0;
    for (const s of BUILT_IN_SCENARIOS) {
      const source = readFileSync(`${ROOT}suites/${s.area}/${s.id.slice(s.area.length + 1)}.ts`, 'utf8');
      read++;
      const roles = undeclared(s, source);
      if (roles.length) missing.push(`${s.id}: ${roles.join(', ')}`);
    }
    expect(read).toBe(BUILT_IN_SCENARIOS.length);
    expect(read).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('finds a role named in a call, a member and a helper, and every helper still exists', () => {
    expect([...rolesReached("const c = ctx.client('machine');")]).toEqual(['machine']);
    expect([...rolesReached('if (ctx.clients.device) x();')]).toEqual(['device']);
    expect([...rolesReached("await ctx.authorize('keyed', {});")]).toEqual(['keyed']);
    expect([...rolesReached('const c = partyClient(ctx, false);')].sort()).toEqual([...CODE].sort());
    expect([...rolesReached("const note = 'the public client';")]).toEqual([]);
    const checks = ['clients', 'consent', 'modern', 'pages-met', 'token-acceptance', 'token-responses']
      .map((f) => readFileSync(`${ROOT}suites/checks/${f}.ts`, 'utf8'))
      .join('\n');
    for (const helper of Object.keys(HELPERS).filter((h) => !h.includes('(')))
      expect(checks, helper).toMatch(new RegExp(String.raw`export (?:async )?(?:function|const) ${helper}\b`));
  });
});
