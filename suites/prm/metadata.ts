import { CheckFailure, PreconditionError, defineScenario } from '../../harness/scenario/scenario.ts';
import { protectedResourceMetadataUrl } from '../../protocol/protected-resource.ts';
import { applyingRevision, everyRevision, mcpRequirements } from '../checks/mcp.ts';
import { protectedResource } from '../checks/protected-resource.ts';

export default defineScenario({
  id: 'prm.metadata',
  title:
    "The protected resource's metadata (RFC 9728) is JSON at /.well-known/oauth-protected-resource{path}, its " +
    '`resource` is the resource URL exactly, and `authorization_servers` names the authorization server',
  requirements: {
    rfc9728_3_2: {
      spec: 'RFC 9728',
      section: '3.2',
      level: 'MUST',
      party: 'server',
      note: 'a successful response: 200 OK and a JSON object, application/json',
    },
    rfc9728_3_3: {
      spec: 'RFC 9728',
      section: '3.3',
      level: 'MUST',
      party: 'server',
      note: 'the resource value returned is identical to the resource identifier',
    },
    ...mcpRequirements(
      'mcp_as_location',
      everyRevision('Authorization Server Location'),
      'MUST',
      'the Protected Resource Metadata document includes authorization_servers with at least one authorization server',
    ),
  },
  severity: 'high',
  appliesTo: 'oauth2',
  catches: ['prm-resource-mismatch'],
  async run(ctx) {
    const resource = protectedResource(ctx);
    const url = resource.metadataUrl ?? protectedResourceMetadataUrl(resource.url);
    if (!url) throw new PreconditionError(`resource.url ${resource.url} is not an http(s) URL without a fragment`);
    const res = await ctx.http.get(url, {
      headers: { accept: 'application/json' },
      label: 'protected resource metadata (RFC 9728 §3.1)',
    });
    const type = res.header('content-type') ?? '';
    if (res.status !== 200 || typeof res.json !== 'object' || res.json === null || Array.isArray(res.json))
      throw new CheckFailure(
        `The protected resource metadata at ${url} answered HTTP ${res.status}` +
          `${type ? ` (${type.slice(0, 100)})` : ''}${res.status === 200 ? ' without a JSON object' : ''}; ` +
          `${ctx.req.rfc9728_3_2.label} requires 200 OK with a JSON object.`,
        { requirement: ctx.req.rfc9728_3_2 },
      );
    await ctx.softly(() => {
      if (!/^application\/json\s*(;|$)/i.test(type))
        throw new CheckFailure(
          `The protected resource metadata at ${url} came as ${JSON.stringify(type.slice(0, 100))}; ` +
            `${ctx.req.rfc9728_3_2.label} requires the application/json content type.`,
          { requirement: ctx.req.rfc9728_3_2 },
        );
    });
    const doc = res.body;
    await ctx.softly(() => {
      if (doc.resource !== resource.url)
        throw new CheckFailure(
          `The protected resource metadata at ${url} has resource ${JSON.stringify(doc.resource)}, not the resource ` +
            `URL ${resource.url}; ${ctx.req.rfc9728_3_3.label} requires it to be identical (a client then must not ` +
            'use the document).',
          { requirement: ctx.req.rfc9728_3_3 },
        );
    });
    const servers = doc.authorization_servers;
    const listed = Array.isArray(servers) ? servers.filter((s): s is string => typeof s === 'string') : [];
    if (listed.length === 0) {
      const shown =
        servers === undefined ? 'no authorization_servers' : `authorization_servers ${JSON.stringify(servers)}`;
      const mcp = applyingRevision(ctx, 'mcp_as_location');
      if (mcp)
        throw new CheckFailure(
          `The protected resource metadata at ${url} has ${shown.slice(0, 200)}; ${mcp.label} requires at least ` +
            'one authorization server there.',
          { requirement: mcp },
        );
      ctx.evidence.note(`The metadata has ${shown.slice(0, 200)} (OPTIONAL in RFC 9728 §2; MCP requires one).`);
      return;
    }
    if (!listed.includes(ctx.target.issuer))
      throw new PreconditionError(
        `the protected resource's metadata names the authorization servers ${JSON.stringify(listed).slice(0, 300)}, ` +
          `not the target's issuer ${ctx.target.issuer}: the config pairs this resource with an authorization ` +
          'server it does not name',
      );
    ctx.evidence.note(`authorization_servers names the target's issuer ${ctx.target.issuer}.`);
  },
});
