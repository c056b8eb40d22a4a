/**
 * Signing in from tests through the harness's own form login driver (harness/login/form.ts: pages
 * read by parse5, cookies kept by tough-cookie), and single requests with a session's cookies.
 * Tests use this instead of parsing HTML or keeping cookies themselves.
 */
import { HttpClient } from '../../harness/http/client.ts';
import { Recorder } from '../../harness/http/recorder.ts';
import type { DeviceActivation, DeviceActivationOutcome } from '../../harness/login/driver.ts';
import { FormLoginDriver } from '../../harness/login/form.ts';
import { LoginSession } from '../../harness/login/session.ts';
import { Redactor } from '../../harness/redact/redact.ts';

export interface TestUser {
  username: string;
  password: string;
  usernameField?: string;
  passwordField?: string;
}

export function formDriver(user: TestUser): FormLoginDriver {
  const http = new HttpClient({ recorder: new Recorder(new Redactor()), requestTimeoutMs: 20_000 });
  return new FormLoginDriver({ http, ...user });
}

/**
 * Follows the authorization request as the user (login, consent approved) to the redirect to `redirectUri`, never
 * fetched.
 */
export async function redirectAfterLogin(url: URL | string, redirectUri: string, user: TestUser): Promise<URL> {
  const outcome = await formDriver(user).authorize(String(url), [redirectUri]);
  if (outcome.kind !== 'redirect')
    throw new Error(
      `the login ended on a page (HTTP ${outcome.status}, ${outcome.reason}): ${outcome.body.slice(0, 300)}`,
    );
  return new URL(outcome.url);
}

/** Activates a device as the user (RFC 8628 §3.3). */
export function activateDevice(activation: DeviceActivation, user: TestUser): Promise<DeviceActivationOutcome> {
  return formDriver(user).activateDevice(activation);
}

/** One request with the session's cookies, redirects not followed; the response's cookies are kept. */
export async function send(session: LoginSession, url: URL | string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = session.cookieHeader(String(url));
  if (cookie) headers.set('cookie', cookie);
  const response = await fetch(url, { ...init, headers, redirect: 'manual' });
  session.store(String(url), response.headers.getSetCookie());
  return response;
}

export { LoginSession };
