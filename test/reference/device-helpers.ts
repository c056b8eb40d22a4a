/**
 * Helpers of the device-flow tests: a listening server with a settable clock, the device's two
 * requests (device authorization and polling), and a user agent that drives the activation
 * pages through their own forms, as a person with a browser would.
 */
import { expect } from 'vitest';
import { LoginSession } from '../../harness/login/session.ts';
import { SEEDED_CLIENTS, SEEDED_USER } from '../../reference/index.ts';
export { useServer } from './helpers.ts';

export const TV = SEEDED_CLIENTS.device;
export const ALICE = SEEDED_USER;
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** A clock the tests move by hand (epoch milliseconds). */
export class FakeClock {
  ms = Date.now();
  readonly now = () => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

export async function postForm(
  url: string,
  body: Record<string, string> | URLSearchParams,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...FORM, ...headers },
    body: new URLSearchParams(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** The device's first request (RFC 8628 §3.1); `body` replaces the default one. */
export const requestDevice = (
  issuer: string,
  body: Record<string, string> = { client_id: TV.clientId, scope: 'openid offline_access' },
) => postForm(`${issuer}/device/auth`, body);

/** A successful device authorization for the seeded TV client. */
export async function startDevice(issuer: string, scope?: string): Promise<DeviceAuthorization> {
  const res = await requestDevice(issuer, { client_id: TV.clientId, ...(scope === undefined ? {} : { scope }) });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as unknown as DeviceAuthorization;
}

/** One poll of the token endpoint (RFC 8628 §3.4). */
export const poll = (issuer: string, deviceCode: string, clientId: string = TV.clientId) =>
  postForm(`${issuer}/token`, { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });

export interface Page {
  status: number;
  headers: Headers;
  html: string;
  location?: string;
}

/** A browser without JavaScript: the harness's cookie jar (harness/login/session.ts), manual redirects. */
export class UserAgent {
  readonly session = new LoginSession('test user agent');
  /** Every response, in order. */
  readonly pages: Page[] = [];

  get(url: string): Promise<Page> {
    return this.#record(url, fetch(url, { redirect: 'manual', headers: this.#cookieHeader(url) }));
  }

  /** Submits the page's (first) form with `fields`. */
  submit(page: Page, fields: Record<string, string>): Promise<Page> {
    return this.post(formAction(page.html), fields);
  }

  post(url: string, fields: Record<string, string>): Promise<Page> {
    const headers = { ...FORM, ...this.#cookieHeader(url) };
    const body = new URLSearchParams(fields);
    return this.#record(url, fetch(url, { method: 'POST', redirect: 'manual', headers, body }));
  }

  #cookieHeader(url: string): Record<string, string> {
    const cookie = this.session.cookieHeader(url);
    return cookie ? { cookie } : {};
  }

  async #record(url: string, pending: Promise<Response>): Promise<Page> {
    const response = await pending;
    this.session.store(url, response.headers.getSetCookie());
    const location = response.headers.get('location');
    const page: Page = { status: response.status, headers: response.headers, html: await response.text() };
    if (location !== null) page.location = location;
    this.pages.push(page);
    return page;
  }
}

/** The action of the (first) form on an HTML page, unescaped. */
export function formAction(html: string): string {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on the page:\n${html}`);
  return action.replace(/&amp;/g, '&');
}

/** The text of the page's error box, if any. */
export const errorText = (html: string) => /<div class="error" role="alert">([^<]*)<\/div>/.exec(html)?.[1];

/**
 * What a person does: enters the code at the activation page, signs in, and (when `decision`
 * is given) approves or denies. Stops at the first unexpected response.
 */
export async function activate(
  verificationUri: string,
  userCode: string,
  opts: { decision?: 'approve' | 'deny'; password?: string; agent?: UserAgent } = {},
): Promise<{ agent: UserAgent; last: Page }> {
  const agent = opts.agent ?? new UserAgent();
  let last = await agent.post(verificationUri, { user_code: userCode });
  if (last.status !== 303 || !last.location) return { agent, last };
  const login = await agent.get(last.location);
  last = await agent.submit(login, { username: ALICE.username, password: opts.password ?? ALICE.password });
  if (last.status !== 303 || !last.location) return { agent, last };
  last = await agent.get(last.location);
  if (opts.decision === undefined || last.status !== 200) return { agent, last };
  last = await agent.submit(last, { decision: opts.decision });
  return { agent, last };
}
