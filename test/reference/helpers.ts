/** Shared test helpers: a listening reference server, PKCE values, and the browser steps of /auth. */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { readPage } from '../../harness/login/html.ts';
import {
  createReferenceServer,
  SEEDED_CLIENTS,
  SEEDED_USER,
  type ReferenceOptions,
  type ReferenceServer,
} from '../../reference/index.ts';

/** A seeded client plus its (first) registered redirect URI. */
const withRedirect = <C extends { redirectUris: string[] }>(client: C) => ({
  ...client,
  redirectUri: client.redirectUris[0]!,
});
export const WEB = withRedirect(SEEDED_CLIENTS.confidential);
export const PARTNER = withRedirect(SEEDED_CLIENTS.confidential2);
export const SPA = withRedirect(SEEDED_CLIENTS.public);
export const MACHINE = SEEDED_CLIENTS.machine;
export const ALICE = SEEDED_USER;

/** Starts a server on 127.0.0.1, port 0, for the enclosing describe block (or file). */
export function useServer(options: ReferenceOptions = {}): {
  readonly server: ReferenceServer;
  readonly issuer: string;
} {
  let server: ReferenceServer | undefined;
  beforeAll(async () => {
    server = createReferenceServer(options);
    await server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error('server not started');
      return server;
    },
    get issuer() {
      if (!server) throw new Error('server not started');
      return server.issuer;
    },
  };
}

/** Registers a code-flow client (RFC 7591) at `issuer` with the redirect URI https://rp.example.test/cb and `extra`. */
export function registerCodeClient(issuer: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${issuer}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      redirect_uris: ['https://rp.example.test/cb'],
      grant_types: ['authorization_code'],
      scope: 'openid',
      ...extra,
    }),
  });
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export function authUrl(issuer: string, params: Record<string, string>): string {
  return `${issuer}/auth?${new URLSearchParams(params)}`;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** The action of the (first) form on an HTML page, read as a browser reads it (harness/login/html.ts). */
export function formAction(html: string): string {
  const action = readPage(html, 'about:blank', 200).forms[0]?.action;
  if (!action) throw new Error(`no form on the page:\n${html}`);
  return action;
}

/** Opens the login page of an authorization URL: the page, its form action and the interaction cookie. */
export async function openLogin(
  url: string,
): Promise<{ response: Response; page: string; action: string; cookie: string }> {
  const response = await fetch(url, { redirect: 'manual' });
  const page = await response.text();
  const cookie = response.headers.get('set-cookie')?.split(';')[0] ?? '';
  return { response, page, action: response.status === 200 ? formAction(page) : '', cookie };
}

/** POSTs a form as the browser would, with the interaction cookie, without following the redirect. */
export function postForm(action: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie },
    body: new URLSearchParams(fields),
  });
}

export const credentials = { username: ALICE.username, password: ALICE.password };

export interface BrowserResult {
  /** The Location of the final 303 to the client (undefined if the flow ended on a page). */
  location?: string;
  /** Status of each response, in order. */
  statuses: number[];
  /** The last HTML page seen. */
  page: string;
}

/**
 * Does what a browser does from the authorization URL: shows the login page, posts the
 * credentials, shows consent if asked and posts the decision, and stops at the redirect to the
 * client. Uses only the pages' own forms and the interaction cookie.
 */
export async function browse(
  url: string,
  opts: { username?: string; password?: string; decision?: 'approve' | 'deny' } = {},
): Promise<BrowserResult> {
  const login = await openLogin(url);
  const statuses = [login.response.status];
  if (login.response.status !== 200) return { statuses, page: login.page, ...locationOf(login.response) };
  let response = await postForm(login.action, login.cookie, {
    ...credentials,
    ...pick(opts, ['username', 'password']),
  });
  statuses.push(response.status);
  if (response.status !== 303) return { statuses, page: await response.text() };
  const next = response.headers.get('location')!;
  if (!next.startsWith(new URL(url).origin)) return { statuses, page: login.page, location: next };
  response = await fetch(next, { redirect: 'manual', headers: { cookie: login.cookie } });
  statuses.push(response.status);
  const page = await response.text();
  response = await postForm(formAction(page), login.cookie, { decision: opts.decision ?? 'approve' });
  statuses.push(response.status);
  return { statuses, page, ...locationOf(response) };
}

function pick<T extends object, K extends keyof T>(obj: T, keys: K[]): Partial<Pick<T, K>> {
  return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]])) as Partial<Pick<T, K>>;
}

function locationOf(response: Response): { location?: string } {
  const location = response.headers.get('location');
  return location === null ? {} : { location };
}

/** Runs the whole authorization request for a seeded client and returns the code and its PKCE verifier. */
export async function obtainCode(
  issuer: string,
  client: { clientId: string; redirectUris: readonly string[] },
  extra: Record<string, string> = {},
): Promise<{ code: string; verifier: string; redirectUri: string; callback: URL }> {
  const { verifier, challenge } = pkce();
  const redirectUri = client.redirectUris[0]!;
  const url = authUrl(issuer, {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: 'openid',
    state: 'state-1',
    nonce: 'nonce-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  const { location } = await browse(url);
  if (!location) throw new Error('the flow did not redirect back to the client');
  const callback = new URL(location);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${location}`);
  return { code, verifier, redirectUri, callback };
}

/** POSTs a form to /token, optionally with Basic credentials. */
export async function token(
  issuer: string,
  body: Record<string, string>,
  auth?: { id: string; secret: string },
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const headers: Record<string, string> = { ...FORM };
  if (auth) headers.authorization = basic(auth.id, auth.secret);
  const response = await fetch(`${issuer}/token`, { method: 'POST', headers, body: new URLSearchParams(body) });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

export const webAuth = { id: WEB.clientId, secret: WEB.clientSecret };
export const partnerAuth = { id: PARTNER.clientId, secret: PARTNER.clientSecret };

/** Code exchange for a seeded client: Basic for confidential ones, client_id for public ones. */
export function redeem(
  issuer: string,
  client: { clientId: string; clientSecret?: string },
  got: { code: string; verifier: string; redirectUri: string },
) {
  const body = {
    grant_type: 'authorization_code',
    code: got.code,
    code_verifier: got.verifier,
    redirect_uri: got.redirectUri,
  };
  return client.clientSecret === undefined
    ? token(issuer, { ...body, client_id: client.clientId })
    : token(issuer, body, { id: client.clientId, secret: client.clientSecret });
}

export const claimsOf = (jwt: unknown) => decodeJwt(String(jwt));
export const headerOf = (jwt: unknown) => decodeProtectedHeader(String(jwt));
