import { type Client, type ScenarioContext, defineScenario } from '../../harness/scenario.ts';
import { CODE_FLOW_ROLES, type PageHeaders, expectFramingForbidden, findClient, partyClient } from '../checks/index.ts';

interface Page {
  name: string;
  url: string;
  headers: PageHeaders;
}

/** The login and consent pages of one authorization request, as the login driver saw them. */
async function authorizationPages(ctx: ScenarioContext, client: Client): Promise<Page[]> {
  const pkce = ctx.pkce.create();
  const auth = await ctx.authorize(client.role, { code_challenge: pkce.challenge, code_challenge_method: pkce.method });
  if (!auth.visits) ctx.log(`the ${ctx.login.name} login driver does not report page headers`);
  // Named without the query: the request's parameters say nothing about the page.
  return (auth.visits ?? []).map((v) => ({ name: `${v.kind} page`, url: v.url.split('?')[0]!, headers: v.headers }));
}

/**
 * The device activation page: verification_uri of a fresh device authorization (RFC 8628 §3.2), redirects followed on
 * its origin.
 */
async function activationPage(ctx: ScenarioContext, device: Client, endpoint: string): Promise<Page | undefined> {
  const res = await ctx.http.token(
    device,
    { scope: device.scope || undefined },
    { url: endpoint, label: 'device authorization request' },
  );
  const uri = res.body.verification_uri;
  if (res.status !== 200 || typeof uri !== 'string') {
    ctx.log(
      `the device authorization request got HTTP ${res.status} without a verification_uri; the activation page was ` +
        `not checked`,
    );
    return undefined;
  }
  let url = uri;
  for (let hop = 0; hop < 5; hop++) {
    const page = await ctx.http.get(url, { headers: { accept: 'text/html' }, label: 'device activation page' });
    const location = page.header('location');
    const next = page.status >= 300 && page.status < 400 && location ? new URL(location, url) : undefined;
    if (!next || next.origin !== new URL(uri).origin)
      return { name: 'device activation page', url, headers: page.headers };
    url = next.href;
  }
  return undefined;
}

export default defineScenario({
  id: 'headers.clickjacking',
  title: 'The login, consent and device activation pages forbid framing (X-Frame-Options or CSP frame-ancestors)',
  requirements: {
    rfc9700_4_16: { spec: 'RFC 9700', section: '4.16', level: 'MUST', party: 'server', note: 'prevent clickjacking' },
  },
  severity: 'high',
  requires: { user: true, capabilities: ['endpoint:authorization'] },
  catches: ['no-frame-protection'],
  async run(ctx) {
    const pages: Page[] = [];
    // A third-party client first: it is the one shown a consent page.
    const client = partyClient(ctx, false) ?? findClient(ctx, CODE_FLOW_ROLES, (c) => !!c.redirectUri);
    if (client) pages.push(...(await authorizationPages(ctx, client)));
    const device = ctx.clients.device;
    const endpoint = ctx.target.endpoints.deviceAuthorization;
    if (device && endpoint) {
      const page = await activationPage(ctx, device, endpoint);
      if (page) pages.push(page);
    }
    if (pages.length === 0)
      return ctx.skip(
        'no login, consent or activation page was reached (needs a code-flow client, or a device client and a ' +
          'device endpoint)',
      );
    ctx.evidence.note(pages.map((p) => `${p.name}: ${p.url}`).join('\n'), 'pages checked');
    for (const page of pages) await ctx.softly(() => expectFramingForbidden(page, { per: ctx.req.rfc9700_4_16 }));
  },
});
