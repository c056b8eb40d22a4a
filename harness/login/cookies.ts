/**
 * Cookies between the two actuators: the HTTP actuator's cookie jar (tough-cookie) into a browser context when a walk
 * goes on in Chromium, and the context's cookies back into the jar when the walk ends, so the next walk (over HTTP)
 * starts from what the browser ended with. Host-only and domain cookies stay what they are (Playwright names a
 * domain cookie's domain with a leading dot); expiry, Path, Secure, HttpOnly and SameSite carry over.
 */
import type { BrowserContext } from 'playwright-core';
import { Cookie, type CookieJar } from 'tough-cookie';

type BrowserCookie = Parameters<BrowserContext['addCookies']>[0][number];
type SameSite = NonNullable<BrowserCookie['sameSite']>;

const SAME_SITE: Record<string, SameSite> = { strict: 'Strict', lax: 'Lax', none: 'None' };

/** The jar's cookies as a browser context takes them. */
export function browserCookies(jar: CookieJar): BrowserCookie[] {
  const cookies: BrowserCookie[] = [];
  for (const json of jar.serializeSync()?.cookies ?? []) {
    const c = Cookie.fromJSON(json);
    if (!c?.domain) continue;
    const expiry = c.expiryTime();
    const expires = expiry === undefined || !Number.isFinite(expiry) ? -1 : Math.floor(expiry / 1000);
    if (expires !== -1 && expires * 1000 <= Date.now()) continue;
    // SameSite=None needs Secure in a browser; the jar keeps such a cookie over http, the browser would drop it: Lax
    // still goes with every navigation on the IdP's own site, which is where a walk is.
    const sameSite = SAME_SITE[String(c.sameSite ?? '').toLowerCase()] ?? 'Lax';
    cookies.push({
      name: c.key,
      value: c.value,
      domain: c.hostOnly ? c.domain : `.${c.domain}`,
      path: c.path ?? '/',
      expires,
      httpOnly: c.httpOnly,
      secure: c.secure,
      sameSite: sameSite === 'None' && !c.secure ? 'Lax' : sameSite,
    });
  }
  return cookies;
}

/** Puts the jar's cookies into the context (each on its own: one the browser refuses does not stop the others). */
export async function cookiesIntoBrowser(jar: CookieJar, context: BrowserContext): Promise<void> {
  const cookies = browserCookies(jar);
  await context.addCookies(cookies).catch(async () => {
    for (const cookie of cookies) await context.addCookies([cookie]).catch(() => undefined);
  });
}

/** Replaces the jar's cookies by the context's. */
export async function cookiesFromBrowser(context: BrowserContext, jar: CookieJar): Promise<void> {
  const cookies = await context.cookies();
  jar.removeAllCookiesSync();
  for (const c of cookies) {
    const domainCookie = c.domain.startsWith('.');
    const host = c.domain.replace(/^\./, '');
    const cookie = new Cookie({
      key: c.name,
      value: c.value,
      path: c.path,
      httpOnly: c.httpOnly,
      secure: c.secure,
      sameSite: c.sameSite.toLowerCase(),
      ...(domainCookie ? { domain: host } : {}),
      ...(c.expires > 0 ? { expires: new Date(c.expires * 1000) } : {}),
    });
    try {
      jar.setCookieSync(cookie, `${c.secure ? 'https' : 'http'}://${host}${c.path}`, { ignoreError: true });
    } catch {
      // a cookie the jar cannot hold (a public suffix): a browser would not send it either
    }
  }
}
