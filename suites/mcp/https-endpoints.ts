import { CheckFailure, type ScenarioContext, defineScenario } from '../../harness/scenario/scenario.ts';
import { isLoopbackUrl, protectedResourceMetadataUrl } from '../../protocol/protected-resource.ts';
import { applyingRevision, everyRevision, mcpRequirements } from '../checks/mcp.ts';
import {
  codeClientMetadata,
  deleteRegistered,
  expectRegistrationRefusalIsFor,
  tryRegister,
} from '../checks/registration.ts';

/** A redirect URI over http on a host that is not loopback (MCP: "localhost or HTTPS"). */
const HTTP_REDIRECT_URI = 'http://app.example/cb';

export default defineScenario({
  id: 'mcp.https-endpoints',
  title:
    'Every endpoint in the authorization server and protected resource metadata is https (loopback excepted), and ' +
    'registration refuses an http redirect URI that is not loopback',
  requirements: {
    rfc6749_3_1: {
      spec: 'RFC 6749',
      section: '3.1',
      level: 'MUST',
      party: 'server',
      note: 'TLS for requests to the authorization endpoint',
    },
    rfc6749_3_2: {
      spec: 'RFC 6749',
      section: '3.2',
      level: 'MUST',
      party: 'server',
      note: 'TLS for requests to the token endpoint',
    },
    ...mcpRequirements(
      'mcp_endpoints',
      everyRevision('Communication Security'),
      'MUST',
      'all authorization server endpoints served over HTTPS (OAuth 2.1 §1.5)',
    ),
    ...mcpRequirements(
      'mcp_redirects',
      everyRevision('Communication Security'),
      'MUST',
      'all redirect URIs either localhost or HTTPS (the sentence names no party: the authorization server that ' +
        'registers one is judged)',
    ),
  },
  severity: 'high',
  appliesTo: 'oauth2',
  catches: ['registration-http-redirect-accepted'],
  async run(ctx) {
    const endpoints = await endpointUrls(ctx);
    if (endpoints.length === 0) return ctx.skip('no metadata was read: there are no endpoint URLs to judge');
    const mcpEndpoints = applyingRevision(ctx, 'mcp_endpoints');
    const plain = endpoints.filter((e) => !isHttps(e.url));
    for (const e of plain) {
      // MCP's sentence is about the authorization server's endpoints: the protected resource's own URLs are noted.
      const rule =
        e.field === 'authorization_endpoint'
          ? ctx.req.rfc6749_3_1
          : e.field === 'token_endpoint'
            ? ctx.req.rfc6749_3_2
            : e.where === 'authorization server metadata' || e.field === 'authorization_servers'
              ? mcpEndpoints
              : undefined;
      const text = `${e.where} ${e.field} is ${e.url}, neither https nor a loopback host`;
      if (!rule) {
        ctx.evidence.note(`${text}: no document of the ${ctx.profile} profile requires https for it here.`);
        continue;
      }
      await ctx.softly(() => {
        throw new CheckFailure(`The ${text}; ${rule.label} requires it to be served over TLS (https).`, {
          requirement: rule,
        });
      });
    }
    ctx.evidence.note(
      `${endpoints.length - plain.length} of ${endpoints.length} endpoint URLs are https or loopback` +
        `${plain.length ? '' : ' (all)'}.`,
    );
    await httpRedirectRefused(ctx);
  },
});

function isHttps(url: string): boolean {
  return url.startsWith('https://') || isLoopbackUrl(url);
}

/** Every endpoint URL of the authorization server's metadata and, when configured, the protected resource's. */
async function endpointUrls(ctx: ScenarioContext): Promise<{ where: string; field: string; url: string }[]> {
  const out: { where: string; field: string; url: string }[] = [];
  const doc = ctx.target.fetchedDiscovery ?? ctx.target.discovery;
  for (const [field, value] of Object.entries(doc ?? {}))
    if (typeof value === 'string' && (field.endsWith('_endpoint') || field === 'jwks_uri' || field === 'issuer'))
      out.push({ where: 'authorization server metadata', field, url: value });
  const resource = ctx.resource;
  const url = resource && (resource.metadataUrl ?? protectedResourceMetadataUrl(resource.url));
  if (resource && url) {
    const res = await ctx.http.get(url, {
      headers: { accept: 'application/json' },
      label: 'protected resource metadata',
    });
    if (res.status === 200)
      for (const [field, value] of Object.entries(res.body)) {
        const values = Array.isArray(value) ? value : [value];
        if (field === 'resource' || field === 'authorization_servers' || field === 'jwks_uri')
          for (const v of values)
            if (typeof v === 'string') out.push({ where: 'protected resource metadata', field, url: v });
      }
    else ctx.evidence.note(`The protected resource metadata at ${url} answered HTTP ${res.status}: not read.`);
  }
  return out;
}

/**
 * Registration (RFC 7591) of a client whose redirect URI is http on a host that is not loopback is refused; a client
 * registered anyway is deleted (RFC 7592). The control: the same request with a loopback redirect URI registers.
 */
async function httpRedirectRefused(ctx: ScenarioContext): Promise<void> {
  if (!ctx.target.endpoints.registration) {
    ctx.evidence.note('The target advertises no registration_endpoint: the redirect URI rule is not judged.');
    return;
  }
  const rule = applyingRevision(ctx, 'mcp_redirects');
  if (!rule) {
    ctx.evidence.note(`No document of the ${ctx.profile} profile requires an https or loopback redirect URI.`);
    return;
  }
  const outcome = await tryRegister(
    ctx,
    codeClientMetadata(ctx, { redirect_uris: [HTTP_REDIRECT_URI] }),
    `registration with the redirect URI ${HTTP_REDIRECT_URI}`,
  );
  if (outcome.ok) {
    await deleteRegistered(ctx, outcome.value);
    throw new CheckFailure(
      `The registration endpoint registered a client (${outcome.value.clientId}) with the redirect URI ` +
        `${HTTP_REDIRECT_URI}, http on a host that is not loopback; ${rule.label} requires redirect URIs to be ` +
        'localhost or https.',
      { requirement: rule },
    );
  }
  await expectRegistrationRefusalIsFor(
    ctx,
    codeClientMetadata(ctx),
    `refused the redirect URI ${HTTP_REDIRECT_URI} (${outcome.problem})`,
    'an http redirect URI that is not loopback',
  );
}
