/**
 * The MCP documents as requirements: an MCP revision is cited by heading title (`MCP 2025-11-25 › Token Handling`) and
 * links to that heading of modelcontextprotocol.io's page of the revision (2026-07-28: the sub-page that holds it);
 * the CIMD draft by section number, linked on the datatracker.
 */
import { describe, expect, it } from 'vitest';
import { mcpPageOf } from '../../harness/model/mcp-sentences.ts';
import {
  declareRequirements,
  findRequirement,
  requirementLabel,
  requirementUrl,
  resolveLevel,
} from '../../harness/model/requirements.ts';

const MCP = 'https://modelcontextprotocol.io/specification';

describe('MCP requirements', () => {
  it('are labelled by revision and heading title', () => {
    expect(requirementLabel({ spec: 'MCP 2025-11-25', section: 'Token Audience Binding and Validation' })).toBe(
      'MCP 2025-11-25 › Token Audience Binding and Validation',
    );
    expect(requirementLabel({ spec: 'MCP 2026-07-28', section: 'Token Handling', note: '401' })).toBe(
      'MCP 2026-07-28 › Token Handling (401)',
    );
    expect(requirementLabel({ spec: 'CIMD', section: '4.1' })).toBe('CIMD §4.1');
  });

  it('link to the heading of the revision’s authorization page', () => {
    expect(requirementUrl({ spec: 'MCP 2025-06-18', section: 'Token Handling' })).toBe(
      `${MCP}/2025-06-18/basic/authorization#token-handling`,
    );
    expect(requirementUrl({ spec: 'MCP 2025-11-25', section: 'Token Audience Binding and Validation' })).toBe(
      `${MCP}/2025-11-25/basic/authorization#token-audience-binding-and-validation`,
    );
  });

  it('link into the 2026-07-28 sub-page that holds the heading, or to the sub-page itself for its title', () => {
    expect(requirementUrl({ spec: 'MCP 2026-07-28', section: 'Token Handling' })).toBe(
      `${MCP}/2026-07-28/basic/authorization#token-handling`,
    );
    expect(requirementUrl({ spec: 'MCP 2026-07-28', section: 'Communication Security' })).toBe(
      `${MCP}/2026-07-28/basic/authorization/security-considerations#communication-security`,
    );
    expect(requirementUrl({ spec: 'MCP 2026-07-28', section: 'Implementation Requirements' })).toBe(
      `${MCP}/2026-07-28/basic/authorization/client-registration#implementation-requirements`,
    );
    expect(
      requirementUrl({ spec: 'MCP 2026-07-28', section: 'Protected Resource Metadata Discovery Requirements' }),
    ).toBe(
      `${MCP}/2026-07-28/basic/authorization/authorization-server-discovery` +
        '#protected-resource-metadata-discovery-requirements',
    );
    expect(requirementUrl({ spec: 'MCP 2026-07-28', section: 'Mix-Up Attacks' })).toBe(
      `${MCP}/2026-07-28/basic/authorization/security-considerations#mix-up-attacks`,
    );
    expect(requirementUrl({ spec: 'MCP 2026-07-28', section: 'Authorization Security Considerations' })).toBe(
      `${MCP}/2026-07-28/basic/authorization/security-considerations`,
    );
    // a heading of the overview page and a sub-page's title: the overview's heading
    expect(mcpPageOf('2026-07-28', 'Authorization Server Discovery')).toBe('');
    expect(requirementUrl({ spec: 'MCP 2026-07-28', section: 'Authorization Server Discovery' })).toBe(
      `${MCP}/2026-07-28/basic/authorization#authorization-server-discovery`,
    );
  });

  it('link the CIMD draft’s sections on the datatracker', () => {
    expect(requirementUrl({ spec: 'CIMD', section: '4.1' })).toBe(
      'https://datatracker.ietf.org/doc/html/draft-ietf-oauth-client-id-metadata-document-00#section-4.1',
    );
  });

  it('are found by their label', () => {
    const req = declareRequirements({
      handling: { spec: 'MCP 2025-11-25', section: 'Token Handling', level: 'MUST', party: 'server' },
    });
    const { requirements } = resolveLevel([req.handling], 'mcp-2025-11-25', []);
    expect(findRequirement(requirements, 'MCP 2025-11-25 › Token Handling')?.key).toBe('handling');
  });

  it('count only in their own revision’s profile', () => {
    const r = { spec: 'MCP 2025-11-25', section: 'Token Handling', level: 'MUST', party: 'server' } as const;
    expect(resolveLevel([r], 'mcp-2025-11-25', []).level).toBe('MUST');
    expect(resolveLevel([r], 'mcp-2026-07-28', []).level).toBeUndefined();
    expect(resolveLevel([r], 'spec', []).level).toBeUndefined();
  });
});
