/** Requirements of the MCP Authorization specification, one per revision that has the sentence. */
import type { Level, Party, Requirement, RequirementRef, ScenarioContext } from '../../harness/scenario/scenario.ts';

/** The MCP revisions, as the keys a scenario declares them under: `<name>_2025_06_18`, …. */
export const MCP_REVISIONS = ['2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type McpRevision = (typeof MCP_REVISIONS)[number];
type Key<N extends string, R extends McpRevision> = `${N}_${R extends `${infer Y}-${infer M}-${infer D}`
  ? `${Y}_${M}_${D}`
  : never}`;

/**
 * The same sentence in each revision that has it, cited by the exact heading title of that revision's authorization
 * text: `sections` names the heading per revision (a revision without the sentence is left out).
 */
export function mcpRequirements<N extends string, R extends McpRevision>(
  name: N,
  sections: Readonly<Record<R, string>>,
  level: Level,
  note: string,
  party: Party = 'server',
): Record<Key<N, R>, Requirement> {
  const out: Record<string, Requirement> = {};
  for (const revision of MCP_REVISIONS) {
    const section = (sections as Partial<Record<McpRevision, string>>)[revision];
    if (section === undefined) continue;
    out[`${name}_${revision.replaceAll('-', '_')}`] = { spec: `MCP ${revision}`, section, level, party, note };
  }
  return out as Record<Key<N, R>, Requirement>;
}

/** The same heading in every revision. */
export function everyRevision(section: string): Record<McpRevision, string> {
  return { '2025-06-18': section, '2025-11-25': section, '2026-07-28': section };
}

/**
 * The first of a scenario's requirements declared by mcpRequirements(`name`, …) that applies in the run's profile
 * (each MCP revision counts only in its own profile), or undefined outside the MCP profiles.
 */
export function applyingRevision(ctx: ScenarioContext, name: string): RequirementRef | undefined {
  for (const revision of MCP_REVISIONS) {
    const key = `${name}_${revision.replaceAll('-', '_')}`;
    if (!(key in ctx.req)) continue;
    const ref = ctx.req[key]!;
    if (ctx.applies(ref)) return ref;
  }
  return undefined;
}
