/**
 * The IdP's pages a user meets, for the scenarios that judge page headers (headers.clickjacking,
 * headers.referrer-policy): the login and consent pages of one authorization request (as the login
 * driver saw them), the device activation page (verification_uri of a fresh device authorization)
 * and the error page of an authorization request with an unregistered redirect_uri. Each page is
 * opened as a browser's navigation; the kinds not met are named with why, so a verdict says what
 * it looked at.
 */
import {
  type Client,
  PreconditionError,
  type ScenarioContext,
  describeOutcome,
} from '../../harness/scenario/scenario.ts';
import type { PageHeaders } from './framing.ts';

export type MetPageKind = 'login' | 'consent' | 'device activation' | 'error';

export interface MetPage {
  kind: MetPageKind;
  /** Its URL without the query (the request's parameters say nothing about the page). */
  url: string;
  headers: PageHeaders;
  body?: string;
}

export interface PagesMet {
  pages: MetPage[];
  /** Each kind not met, with why. */
  notMet: string[];
}

const KINDS: MetPageKind[] = ['login', 'consent', 'device activation', 'error'];

/** A page the user opens at `url` (a navigation), same-origin redirects followed; undefined when none is reached. */
async function openPage(ctx: ScenarioContext, url: string, label: string) {
  const origin = new URL(url).origin;
  let at = url;
  for (let hop = 0; hop < 5; hop++) {
    const page = await ctx.http.get(at, { navigation: { user: true }, label });
    const location = page.header('location');
    const next = page.status >= 300 && page.status < 400 && location ? new URL(location, at) : undefined;
    if (!next) return { url: at, page };
    if (next.origin !== origin) return undefined;
    at = next.href;
  }
  return undefined;
}

/** The device activation page: verification_uri of a fresh device authorization (RFC 8628 §3.2). */
async function activationPage(ctx: ScenarioContext, device: Client, endpoint: string): Promise<MetPage | string> {
  const res = await ctx.http.token(
    device,
    { scope: device.scope || undefined },
    { url: endpoint, label: 'device authorization request' },
  );
  const uri = res.body.verification_uri;
  if (res.status !== 200 || typeof uri !== 'string')
    return `the device authorization request got HTTP ${res.status} without a verification_uri`;
  const opened = await openPage(ctx, uri, 'device activation page');
  if (!opened) return `verification_uri ${uri} redirected off its origin (or in a loop)`;
  return { kind: 'device activation', url: opened.url, headers: opened.page.headers, body: opened.page.text };
}

/** The error page of an authorization request whose redirect_uri is not registered (RFC 6749 §4.1.2.1). */
async function errorPage(ctx: ScenarioContext, client: Client): Promise<MetPage | string> {
  const wrong = new URL(client.redirectUri!);
  wrong.pathname = `${wrong.pathname.replace(/\/$/, '')}/not-registered`;
  const { url } = ctx.authorizationUrl(client.role, { redirect_uri: wrong.href });
  const opened = await openPage(ctx, url, 'authorization request with an unregistered redirect_uri (error page)');
  if (!opened) return 'the authorization request with an unregistered redirect_uri was redirected off the IdP';
  if (opened.page.status >= 300 && opened.page.status < 400)
    return `the authorization request with an unregistered redirect_uri got HTTP ${opened.page.status}, no page`;
  return { kind: 'error', url: opened.url.split('?')[0]!, headers: opened.page.headers, body: opened.page.text };
}

/**
 * The pages met for `client` (a code-flow client with a redirect URI, a third-party one first so
 * that a consent page is shown) and the device client, if any. Adds a note of what was looked at.
 */
export async function pagesMet(ctx: ScenarioContext, client: Client | undefined): Promise<PagesMet> {
  const pages: MetPage[] = [];
  const why = new Map<MetPageKind, string>();
  if (client?.redirectUri) {
    const pkce = ctx.pkce.create();
    const auth = await ctx.authorize(client.role, {
      code_challenge: pkce.challenge,
      code_challenge_method: pkce.method,
    });
    if (!auth.visits) ctx.log(`the ${ctx.login.name} login driver does not report page headers`);
    for (const v of auth.visits ?? [])
      if (v.kind === 'login' || v.kind === 'consent')
        pages.push({ kind: v.kind, url: v.url.split('?')[0]!, headers: v.headers, body: v.body });
    // A walk that stopped short of the redirect did not show what a user sees: no verdict on what it missed.
    if (auth.kind === 'page' && !pages.some((p) => p.kind === 'login'))
      throw new PreconditionError(
        `the authorization request as ${client.role} ${describeOutcome(auth)} before any login page, so the ` +
          `pages a user signs in on could not be looked at`,
      );
    const stop = auth.kind === 'page' ? ` (the walk stopped: ${auth.reason})` : '';
    why.set('login', `the authorization request as ${client.role} showed no login page${stop}`);
    why.set('consent', `the authorization request as ${client.role} showed no consent page${stop}`);
    const error = await errorPage(ctx, client);
    if (typeof error === 'string') why.set('error', error);
    else pages.push(error);
  } else {
    for (const kind of ['login', 'consent', 'error'] as const) why.set(kind, 'no code-flow client with a redirect URI');
  }
  const device = ctx.clients.device;
  const endpoint = ctx.target.endpoints.deviceAuthorization;
  if (device && endpoint) {
    const page = await activationPage(ctx, device, endpoint);
    if (typeof page === 'string') why.set('device activation', page);
    else pages.push(page);
  } else why.set('device activation', 'no device client, or no device authorization endpoint');
  const met = new Set(pages.map((p) => p.kind));
  const notMet = KINDS.filter((k) => !met.has(k)).map((k) => `${k} page: ${why.get(k) ?? 'not reached'}`);
  ctx.evidence.note(
    [
      `Judged: ${pages.map((p) => `${p.kind} page (${p.url})`).join(', ') || 'none'}.`,
      ...(notMet.length ? [`Not met: ${notMet.join('; ')}.`] : []),
    ].join('\n'),
    'pages checked',
  );
  return { pages, notMet };
}
