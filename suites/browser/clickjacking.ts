import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type BrowserPage,
  CheckFailure,
  PreconditionError,
  type ScenarioContext,
  defineScenario,
} from '../../harness/scenario/scenario.ts';
import { CODE_FLOW_ROLES, findClient, framingVerdict, partyClient } from '../checks/index.ts';

/**
 * A page on another origin that frames `?src=`: the attacker's page. It listens where the config
 * says (browser.framingHost / framingPort; default 127.0.0.1, a free port): an IdP that the
 * browser reaches by a name may need the framer on an address of its own.
 */
async function startFramer(at: {
  host: string;
  port: number;
}): Promise<{ url(src: string): string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const src = new URL(req.url ?? '/', 'http://localhost').searchParams.get('src') ?? 'about:blank';
    const attr = src.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(
      `<!doctype html><html><head><title>Another site</title></head><body style="font:14px system-ui;margin:12px">
<p>A page on another origin, framing the IdP's page:</p><iframe src="${attr}" width="760" height="500" ` +
        `style="border:2px dashed #c00"></iframe></body></html>`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, resolve);
  }).catch((error: unknown) => {
    throw new PreconditionError(
      `the framing page could not listen on ${at.host}:${at.port} (browser.framingHost / ` +
        `framingPort): ${error instanceof Error ? error.message : String(error)}`,
    );
  });
  const { port } = server.address() as AddressInfo;
  const host = at.host.includes(':') ? `[${at.host}]` : at.host;
  return {
    url: (src) => `http://${host}:${port}/?src=${encodeURIComponent(src)}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The pages a clickjacker would frame: the login page (the authorization request) and the device activation page. */
async function pagesToFrame(ctx: ScenarioContext): Promise<{ name: string; url: string }[]> {
  const pages: { name: string; url: string }[] = [];
  const client = partyClient(ctx, false) ?? findClient(ctx, CODE_FLOW_ROLES, (c) => !!c.redirectUri);
  if (client) {
    const pkce = ctx.pkce.create();
    pages.push({
      name: 'login page',
      url: ctx.authorizationUrl(client.role, { code_challenge: pkce.challenge, code_challenge_method: pkce.method })
        .url,
    });
  }
  if (ctx.clients.device && ctx.target.endpoints.deviceAuthorization) {
    const res = await ctx.flows.deviceAuthorization('device');
    const uri = res.body.verification_uri;
    if (res.status === 200 && typeof uri === 'string') pages.push({ name: 'device activation page', url: uri });
    else
      ctx.log(
        `the device authorization request got HTTP ${res.status} without a verification_uri; the activation page ` +
          `was not framed`,
      );
  }
  return pages;
}

/** Whether the framed page rendered: its frame committed a document of the IdP (not an error page, not about:blank). */
async function frameOutcome(
  page: BrowserPage,
  framerOrigin: string,
): Promise<{ rendered: boolean; url: string; title: string }> {
  const frame = page.mainFrame().childFrames()[0];
  const url = frame?.url() ?? '';
  const idpDocument = /^https?:/.test(url) && new URL(url).origin !== framerOrigin;
  const title = idpDocument && frame ? await frame.title().catch(() => '') : '';
  return { rendered: idpDocument, url, title };
}

export default defineScenario({
  id: 'browser.clickjacking',
  title: 'In Chromium, a page on another origin that frames the login or device activation page gets nothing rendered',
  requirements: {
    rfc9700_4_16: { spec: 'RFC 9700', section: '4.16', level: 'MUST', party: 'server', note: 'prevent clickjacking' },
  },
  severity: 'high',
  appliesTo: 'oauth2',
  requires: {
    optionalRoles: ['public', 'confidential', 'confidential2', 'device'],
    browser: true,
    capabilities: ['endpoint:authorization'],
  },
  catches: ['no-frame-protection'],
  async run(ctx) {
    const targets = await pagesToFrame(ctx);
    if (targets.length === 0)
      return ctx.skip(
        'no page to frame (needs a code-flow client with a redirectUri, or a device client and a device endpoint)',
      );
    const framer = await startFramer(ctx.browser.framing);
    try {
      const page = await ctx.browser.newPage();
      const framed = new Map<string, Record<string, string>>();
      page.on('response', (r) => {
        if (r.frame() !== page.mainFrame() && r.request().isNavigationRequest())
          void r.allHeaders().then(
            (h) => framed.set(r.url(), h),
            () => undefined,
          );
      });
      for (const target of targets) {
        const at = framer.url(target.url);
        await page.goto(at, { waitUntil: 'load', timeout: 15_000 });
        const outcome = await frameOutcome(page, new URL(at).origin);
        await ctx.browser.screenshot(page, `another origin framing the ${target.name}`);
        const headers = framed.get(outcome.url);
        const served = headers ? ` (served with ${framingVerdict(headers).because})` : '';
        if (!outcome.rendered) {
          ctx.evidence.note(
            `The ${target.name} (${target.url.split('?')[0]}) in a frame on ${new URL(at).origin}: not rendered, ` +
              `the frame shows ${outcome.url || 'nothing'}.`,
          );
          continue;
        }
        await ctx.softly(() => {
          throw new CheckFailure(
            `A page on ${new URL(at).origin} framed the ${target.name} at ${outcome.url.split('?')[0]} and Chromium ` +
              `rendered it ("${outcome.title}")${served}; ${ctx.req.rfc9700_4_16} requires the authorization server ` +
              `to prevent clickjacking (X-Frame-Options or CSP frame-ancestors).`,
            { requirement: ctx.req.rfc9700_4_16 },
          );
        });
      }
    } finally {
      await framer.close();
    }
  },
});
