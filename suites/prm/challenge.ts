import {
  CheckFailure,
  type HttpResponse,
  type RequirementRef,
  type ScenarioContext,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { protectedResourceMetadataUrl, rootProtectedResourceMetadataUrl } from '../../protocol/protected-resource.ts';
import { challengeOf, parseWwwAuthenticate } from '../../protocol/www-authenticate.ts';
import { applyingRevision, mcpRequirements } from '../checks/mcp.ts';
import { protectedResource, resourceAnswer, resourceRequest } from '../checks/protected-resource.ts';

export default defineScenario({
  id: 'prm.challenge',
  title:
    'A request to the protected resource without a token gets 401 with a Bearer challenge whose resource_metadata ' +
    'points at its metadata (RFC 9728 §5.1)',
  requirements: {
    rfc6750_3: {
      spec: 'RFC 6750',
      section: '3',
      level: 'MUST',
      party: 'server',
      note: 'a request without an access token: a WWW-Authenticate header with the Bearer auth-scheme',
    },
    rfc9728_5: {
      spec: 'RFC 9728',
      section: '5',
      level: 'MAY',
      party: 'server',
      note: 'the WWW-Authenticate resource_metadata parameter (§5.1) gives the metadata URL',
    },
    ...mcpRequirements(
      'mcp_header',
      { '2025-06-18': 'Authorization Server Location' },
      'MUST',
      'MCP servers MUST use the WWW-Authenticate header when returning a 401 to indicate the metadata URL',
    ),
    ...mcpRequirements(
      'mcp_discovery',
      {
        '2025-11-25': 'Protected Resource Metadata Discovery Requirements',
        '2026-07-28': 'Protected Resource Metadata Discovery Requirements',
      },
      'MUST',
      'one of: resource_metadata in the 401 WWW-Authenticate header, or the metadata at a well-known URI',
    ),
    ...mcpRequirements(
      'mcp_errors',
      { '2025-06-18': 'Error Handling', '2025-11-25': 'Error Handling', '2026-07-28': 'Error Handling' },
      'MUST',
      '401 Unauthorized: authorization required or token invalid',
    ),
  },
  severity: 'medium',
  appliesTo: 'oauth2',
  catches: ['prm-challenge-without-metadata'],
  async run(ctx) {
    const resource = protectedResource(ctx);
    const res = await resourceRequest(ctx, resource, { label: 'the resource request without an access token' });
    const statusRule = applyingRevision(ctx, 'mcp_errors') ?? ctx.req.rfc6750_3;
    if (res.status !== 401)
      throw new CheckFailure(
        `The resource answered a request without an access token with ${resourceAnswer(res)}; ${statusRule.label} ` +
          'expects 401 Unauthorized with a Bearer challenge.',
        { requirement: statusRule, ...(res.status === 403 ? { kind: 'refused-wrongly' as const } : {}) },
      );
    const parsed = parseWwwAuthenticate(res.header('www-authenticate'));
    if (parsed.truncated) ctx.evidence.note('The WWW-Authenticate header was not read whole (malformed or too long).');
    const bearer = challengeOf(parsed, 'Bearer');
    if (!bearer)
      throw new CheckFailure(
        `The 401 without an access token carried ${describeChallenges(res)}; ${ctx.req.rfc6750_3.label} requires a ` +
          'WWW-Authenticate challenge with the Bearer auth-scheme.',
        { requirement: ctx.req.rfc6750_3 },
      );
    const expected = resource.metadataUrl ?? protectedResourceMetadataUrl(resource.url);
    const named = bearer.params.resource_metadata;
    if (named !== undefined) {
      await expectMetadataAt(ctx, named, expected);
      return;
    }
    const header = applyingRevision(ctx, 'mcp_header');
    if (header)
      throw new CheckFailure(
        `The Bearer challenge (${describeChallenges(res)}) has no resource_metadata; ${header.label} requires the ` +
          'WWW-Authenticate header of a 401 to give the protected resource metadata URL (RFC 9728 §5.1).',
        { requirement: header },
      );
    const discovery = applyingRevision(ctx, 'mcp_discovery');
    if (!discovery) {
      ctx.evidence.note(
        'The Bearer challenge has no resource_metadata: RFC 9728 §5 leaves it to the resource (MAY); no document ' +
          'of this profile requires it.',
      );
      return;
    }
    await expectWellKnown(ctx, resource.url, discovery);
  },
});

function describeChallenges(res: HttpResponse): string {
  const header = res.header('www-authenticate');
  return header === undefined ? 'no WWW-Authenticate header' : `WWW-Authenticate: ${header.slice(0, 300)}`;
}

/** resource_metadata names a URL that serves a JSON object (the metadata); a different URL than expected is noted. */
async function expectMetadataAt(
  ctx: ScenarioContext<'rfc9728_5' | 'rfc6750_3'>,
  named: string,
  expected: string | undefined,
): Promise<void> {
  const rule = ctx.req.rfc9728_5;
  let url: URL;
  try {
    url = new URL(named);
  } catch {
    throw new CheckFailure(
      `The Bearer challenge's resource_metadata is ${JSON.stringify(named.slice(0, 200))}, not a URL; ${rule.label} ` +
        'has it carry the URL of the protected resource metadata.',
      { requirement: rule, kind: 'refused-wrongly' },
    );
  }
  if (expected !== undefined && url.href !== new URL(expected).href)
    ctx.evidence.note(`resource_metadata names ${url.href}, not ${expected} (RFC 9728 §3.1): it is followed as named.`);
  // The harness goes only where the config lets it (docs/security.md): another origin is named, not fetched.
  const offOrigin = ctx.target.origins?.problem(url.href);
  if (offOrigin) {
    ctx.evidence.note(`resource_metadata names ${url.href}, which is not fetched (${offOrigin}).`);
    return;
  }
  const res = await ctx.http.get(url.href, {
    headers: { accept: 'application/json' },
    label: 'the metadata resource_metadata names',
  });
  if (res.status !== 200 || typeof res.json !== 'object' || res.json === null || Array.isArray(res.json))
    throw new CheckFailure(
      `The Bearer challenge's resource_metadata names ${url.href}, which answered HTTP ${res.status}` +
        `${res.status === 200 ? ' without a JSON object' : ''}; ${rule.label} has it give the URL of the ` +
        'protected resource metadata.',
      { requirement: rule, kind: 'refused-wrongly' },
    );
  ctx.evidence.note(`The Bearer challenge's resource_metadata names ${url.href}, which serves a JSON object.`);
}

/** MCP 2025-11-25 and later: without resource_metadata, the metadata at a well-known URI (path inserted, or root). */
async function expectWellKnown(ctx: ScenarioContext, resourceUrl: string, rule: RequirementRef): Promise<void> {
  const urls = [protectedResourceMetadataUrl(resourceUrl), rootProtectedResourceMetadataUrl(resourceUrl)];
  const tried: string[] = [];
  for (const url of new Set(urls.filter((u): u is string => u !== undefined))) {
    const res = await ctx.http.get(url, { headers: { accept: 'application/json' }, label: 'well-known metadata' });
    if (res.status === 200 && typeof res.json === 'object' && res.json !== null && !Array.isArray(res.json)) {
      ctx.evidence.note(
        `The Bearer challenge has no resource_metadata, and the metadata is at the well-known ${url}: ${rule.label} ` +
          'takes either.',
      );
      return;
    }
    tried.push(`${url}: HTTP ${res.status}`);
  }
  throw new CheckFailure(
    `The Bearer challenge has no resource_metadata, and no well-known URI serves the metadata (${tried.join('; ')}); ` +
      `${rule.label} requires one of the two.`,
    { requirement: rule },
  );
}
