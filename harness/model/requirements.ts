/**
 * Requirements, the documents they cite, their links, and profiles (docs/ARCHITECTURE.md).
 *
 * Profiles choose which documents count:
 * - `spec` (default): the service spec (SPEC) plus the standards it builds on (RFCs, OIDC).
 * - `rfc`: the RFCs and OpenID specifications alone.
 * - `fapi2`: the FAPI 2.0 Security Profile's server requirements alone (every one a MUST or
 *   SHOULD of that document), and those of FAPI 2.0 Message Signing, which extends it for the servers that sign
 *   messages; a scenario that cites neither is skipped with that reason.
 * A scenario's level is the strictest level among the requirements that apply in the profile;
 * a requirement may be limited to some client roles (`roles`), e.g. RFC 9700 §2.2.2 makes refresh
 * rotation a MUST for public clients only.
 * - `mcp-2025-06-18`, `mcp-2025-11-25`, `mcp-2026-07-28` (`--profile mcp`: the newest): an MCP server's authorization
 *   as that revision of the MCP Authorization text has it, with the RFCs and OpenID specifications it builds on (not
 *   SPEC) and, from 2025-11-25, the CIMD draft. A profile judges exactly the sentences of its revision: the frozen list
 *   in harness/model/mcp-sentences.ts (MCP_SENTENCES; docs/catalog.md, "MCP authorization"), each with what judges it.
 *   An MCP requirement's section is the exact heading title its sentence sits under in that revision.
 */
import type { ClientRole } from '../../protocol/client-roles.ts';
import { MCP_REVISIONS, type McpRevision } from './mcp-sentence.ts';
import { isMcpPageTitle, mcpPageOf } from './mcp-sentences.ts';
import type { Level, ProfileName, ResolvedRequirement } from './results.ts';

/** The client roles of the target config (docs/target-config.md); `legacy` may use the password and implicit grants. */
export { CLIENT_ROLES, type ClientRole } from '../../protocol/client-roles.ts';

export type SpecName =
  | 'SPEC'
  | 'OIDC Core'
  | 'OIDC Discovery'
  | 'OIDC RP-Initiated Logout'
  | 'OIDC Back-Channel Logout'
  | 'OIDC Front-Channel Logout'
  | 'OIDC Registration'
  | 'OAuth 2.0 Form Post'
  | 'JARM'
  | 'OAuth 2.0 Multiple Response Types'
  | 'FAPI 2.0 SP'
  | 'FAPI 2.0 MS'
  | 'MCP 2025-06-18'
  | 'MCP 2025-11-25'
  | 'MCP 2026-07-28'
  | 'CIMD'
  | `RFC ${number}`;

/**
 * Whom the cited sentence binds. Only a sentence that binds the server (the authorization server,
 * the OP) can make the target fail; a client rule is cited for context and never sets the level.
 */
export type Party = 'server' | 'client';
export const PARTIES: readonly Party[] = ['server', 'client'];

export interface Requirement {
  /** The document: `RFC 6749`, `OIDC Core`, `OIDC Discovery`, or `SPEC` (the service spec). */
  spec: SpecName;
  /** A section number (`4.1.2`), or for SPEC the section title (`Token endpoint`). */
  section: string;
  level: Level;
  /** The party the sentence binds, read from the RFC text (docs/catalog.md, the requirement audit table). */
  party: Party;
  /** The document requires this only of clients in these roles (the scenario must exercise one). */
  roles?: readonly ClientRole[];
  /** Only in these profiles (rarely needed: the document decides membership). */
  profiles?: readonly ProfileName[];
  /** E.g. "rule 1" or "public clients only". */
  note?: string;
}

/**
 * A requirement as a scenario declared it (`requirements: { name: {...} }`), with its name: what a
 * check's `per` and ctx.applies take. Get it from ctx.req.<name> (or the scenario's `req`); a name
 * the scenario does not declare is a type error, and at run time a HarnessError.
 */
export interface RequirementRef extends Readonly<Requirement> {
  /** The name the scenario declared it under. */
  readonly key: string;
  /** "RFC 7636 §4.6", "SPEC › Errors (rule 4)". */
  readonly label: string;
}

export const PROFILES: readonly ProfileName[] = [
  'spec',
  'rfc',
  'fapi2',
  'mcp-2025-06-18',
  'mcp-2025-11-25',
  'mcp-2026-07-28',
];

/** The FAPI 2.0 Security Profile (final): its own document, counted only by the fapi2 profile. */
export const FAPI2_URL = 'https://openid.net/specs/fapi-security-profile-2_0-final.html';
/** FAPI 2.0 Message Signing (final): the Security Profile's extension for signed messages, counted by fapi2 too. */
export const FAPI2_MS_URL = 'https://openid.net/specs/fapi-message-signing-2_0-final.html';

/** JWT Secured Authorization Response Mode for OAuth 2.0 (JARM), OpenID Final, November 2022. */
export const JARM_URL = 'https://openid.net/specs/oauth-v2-jarm.html';

const LEVEL_RANK: Record<Level, number> = { MUST: 3, SHOULD: 2, MAY: 1 };

export function strictest(levels: Level[]): Level | undefined {
  let best: Level | undefined;
  for (const level of levels) if (!best || LEVEL_RANK[level] > LEVEL_RANK[best]) best = level;
  return best;
}

/** Whether a profile counts a document. */
export function profileCounts(profile: ProfileName, spec: SpecName): boolean {
  // fapi2 counts the FAPI 2.0 Security Profile alone (its server requirements, cited by the
  // scenarios that check them); spec and rfc never count it (it is a profile, not a default).
  if (profile === 'fapi2') return spec === 'FAPI 2.0 SP' || spec === 'FAPI 2.0 MS';
  if (spec === 'FAPI 2.0 SP' || spec === 'FAPI 2.0 MS') return false;
  // An MCP revision counts only in its own profile; the CIMD draft is the 2025-11-25 revision's (a SHOULD there).
  if (spec.startsWith('MCP ')) return profile === `mcp-${spec.slice(4)}`;
  if (spec === 'CIMD') return profile !== 'mcp-2025-06-18';
  if (profile.startsWith('mcp-')) return spec !== 'SPEC';
  return profile === 'spec' ? true : spec !== 'SPEC';
}

/** The MCP revision a document name is ('MCP 2025-11-25' → '2025-11-25'), or undefined for other documents. */
export function mcpRevision(spec: string): McpRevision | undefined {
  return MCP_REVISIONS.find((r) => spec === `MCP ${r}`);
}

/** The CIMD draft as the MCP text cites it (-00); its sections link to the datatracker's text. */
export const CIMD_URL = 'https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00';

/** The MCP Authorization text's page of a revision (2026-07-28 splits it into sub-pages). */
export const MCP_SPEC_URL = 'https://modelcontextprotocol.io/specification';

export function requirementLabel(r: Pick<Requirement, 'spec' | 'section' | 'note'>): string {
  // SPEC and the MCP revisions are cited by heading title, the others by section number.
  const byTitle = r.spec === 'SPEC' || mcpRevision(r.spec) !== undefined;
  const base = byTitle ? `${r.spec} › ${r.section}` : `${r.spec} §${r.section}`;
  return r.note ? `${base} (${r.note})` : base;
}

/** GitHub-style heading anchor, for links into the service spec (docs/service-spec.md) and the MCP text. */
function slug(title: string): string {
  return title
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s+/g, '-');
}

export interface LinkOptions {
  /** Where the service spec lives (a URL of docs/service-spec.md); SPEC requirements get no link without it. */
  specUrl?: string;
}

export function requirementUrl(
  r: Pick<Requirement, 'spec' | 'section'>,
  options: LinkOptions = {},
): string | undefined {
  const rfc = /^RFC (\d+)$/.exec(r.spec);
  if (rfc) {
    const anchor = /^[A-Z](\.|$)/.test(r.section) ? `appendix-${r.section}` : `section-${r.section}`;
    return `https://www.rfc-editor.org/rfc/rfc${rfc[1]}#${anchor}`;
  }
  if (r.spec === 'OIDC Core') return `https://openid.net/specs/openid-connect-core-1_0.html#rfc.section.${r.section}`;
  if (r.spec === 'OIDC Discovery') {
    return `https://openid.net/specs/openid-connect-discovery-1_0.html#rfc.section.${r.section}`;
  }
  if (r.spec === 'OIDC RP-Initiated Logout')
    return `https://openid.net/specs/openid-connect-rpinitiated-1_0.html#rfc.section.${r.section}`;
  if (r.spec === 'OIDC Back-Channel Logout')
    return `https://openid.net/specs/openid-connect-backchannel-1_0.html#rfc.section.${r.section}`;
  if (r.spec === 'OIDC Front-Channel Logout')
    return `https://openid.net/specs/openid-connect-frontchannel-1_0.html#rfc.section.${r.section}`;
  if (r.spec === 'OIDC Registration')
    return `https://openid.net/specs/openid-connect-registration-1_0.html#rfc.section.${r.section}`;
  if (r.spec === 'OAuth 2.0 Form Post')
    return `https://openid.net/specs/oauth-v2-form-post-response-mode-1_0.html#rfc.section.${r.section}`;
  if (r.spec === 'JARM') return `${JARM_URL}#section-${r.section}`;
  if (r.spec === 'OAuth 2.0 Multiple Response Types')
    return `https://openid.net/specs/oauth-v2-multiple-response-types-1_0.html#rfc.section.${r.section}`;
  if (r.spec === 'FAPI 2.0 SP') return `${FAPI2_URL}#section-${r.section}`;
  if (r.spec === 'FAPI 2.0 MS') return `${FAPI2_MS_URL}#section-${r.section}`;
  if (r.spec === 'CIMD') return `${CIMD_URL}#section-${r.section}`;
  const revision = mcpRevision(r.spec);
  if (revision) {
    const page = mcpPageOf(revision, r.section);
    const base = `${MCP_SPEC_URL}/${revision}/basic/authorization${page ? `/${page}` : ''}`;
    return isMcpPageTitle(revision, r.section) ? base : `${base}#${slug(r.section)}`;
  }
  if (r.spec === 'SPEC' && options.specUrl) return `${options.specUrl}#${slug(r.section)}`;
  return undefined;
}

export interface LevelResolution {
  level?: Level;
  requirements: ResolvedRequirement[];
  /** Why nothing applies, when level is absent. */
  reason?: string;
}

/**
 * The scenario's level in a profile, given the client roles it exercises: the strictest level
 * among the requirements that apply.
 */
export function resolveLevel(
  requirements: readonly (Requirement | RequirementRef)[],
  profile: ProfileName,
  roles: readonly ClientRole[],
  options: LinkOptions = {},
): LevelResolution {
  const resolved: ResolvedRequirement[] = requirements.map((r) => {
    const inProfile = profileCounts(profile, r.spec) && (!r.profiles || r.profiles.includes(profile));
    const forRoles = !r.roles || r.roles.some((role) => roles.includes(role));
    const bindsServer = r.party !== 'client';
    const url = requirementUrl(r, options);
    return {
      spec: r.spec,
      section: r.section,
      level: r.level,
      party: r.party,
      ...('key' in r ? { key: r.key } : {}),
      label: requirementLabel(r),
      applies: inProfile && forRoles && bindsServer,
      ...(url ? { url } : {}),
      ...(r.note ? { note: r.note } : {}),
    };
  });
  const level = strictest(resolved.filter((r) => r.applies).map((r) => r.level));
  if (level) return { level, requirements: resolved };
  const cited = [...new Set(requirements.map((r) => requirementLabel(r)))].join(', ') || 'nothing';
  const roleLimited = requirements.some((r) => r.roles && profileCounts(profile, r.spec));
  const clientOnly =
    requirements.filter((r) => profileCounts(profile, r.spec)).every((r) => r.party === 'client') &&
    requirements.some((r) => r.party === 'client' && profileCounts(profile, r.spec));
  // Only the profile's own documents bind the client here; the others are not part of the profile at all.
  const clientRules = requirements.filter((r) => profileCounts(profile, r.spec));
  const reason = clientOnly
    ? `no document of the ${profile} profile requires this of the server: ` +
      `${clientRules.map((r) => requirementLabel(r)).join(', ')} bind${clientRules.length > 1 ? '' : 's'} the client`
    : roleLimited
      ? `no document of the ${profile} profile requires this of the client roles it exercises ` +
        `(${roles.join(', ') || 'none'}); it cites ${cited}`
      : `no document of the ${profile} profile requires this; it cites ${cited}`;
  return { requirements: resolved, reason };
}

/** One row of the requirement audit table (`idp-conformance list --requirements`). */
export interface RequirementRow {
  scenario: string;
  key: string;
  label: string;
  party: Party;
  level: Level;
  /** Whether it counts toward the scenario's level in the profile (and why not). */
  counts: boolean;
  why?: string;
}

export function requirementRows(
  scenario: string,
  requirements: readonly RequirementRef[],
  profile: ProfileName,
  roles: readonly ClientRole[],
): RequirementRow[] {
  const resolved = resolveLevel(requirements, profile, roles).requirements;
  return requirements.map((r, i) => {
    const counts = resolved[i]!.applies;
    const why = counts
      ? undefined
      : r.party === 'client'
        ? 'binds the client'
        : !profileCounts(profile, r.spec) || (r.profiles && !r.profiles.includes(profile))
          ? `not in the ${profile} profile`
          : `only for ${r.roles?.join(', ')} clients`;
    return { scenario, key: r.key, label: r.label, party: r.party, level: r.level, counts, ...(why ? { why } : {}) };
  });
}

/** Declare a scenario's requirements: each gets its name (key) and label; frozen. */
export function declareRequirements<K extends string>(
  requirements: Readonly<Record<K, Requirement>>,
): Readonly<Record<K, RequirementRef>> {
  const out = {} as Record<K, RequirementRef>;
  for (const [key, r] of Object.entries(requirements) as [K, Requirement][]) {
    const label = requirementLabel(r);
    // toString: a ref interpolated into a failure sentence reads as its label.
    out[key] = Object.freeze(
      Object.defineProperty({ ...r, key, label }, 'toString', { value: () => label, enumerable: false }),
    );
  }
  return Object.freeze(out);
}

/** Find a requirement by its label or `spec §section` shorthand, e.g. `RFC 6749 §4.1.2`. */
export function findRequirement(
  requirements: readonly ResolvedRequirement[],
  ref: string,
): ResolvedRequirement | undefined {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
  return requirements.find(
    (r) =>
      norm(r.label) === norm(ref) ||
      norm(`${r.spec} §${r.section}`) === norm(ref) ||
      ((r.spec === 'SPEC' || mcpRevision(r.spec) !== undefined) && norm(`${r.spec} › ${r.section}`) === norm(ref)),
  );
}
