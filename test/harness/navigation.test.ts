/** What the form driver sends with a navigation (harness/http/navigation.ts), as a browser computes it. */
import { describe, expect, it } from 'vitest';
import { navigationHeaders } from '../../harness/http/navigation.ts';

const from = (url: string, referrerPolicy?: string) => ({ from: { url, referrerPolicy }, user: true });

describe('navigation headers', () => {
  it('an address typed: Sec-Fetch-Site none, user-activated, no Origin or Referer, through its redirects', () => {
    const h = navigationHeaders('GET', 'https://idp.example/authorize?x=1', { user: true });
    expect(h).toMatchObject({
      'sec-fetch-site': 'none',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
      'sec-fetch-user': '?1',
      'upgrade-insecure-requests': '1',
    });
    expect(h).not.toHaveProperty('origin');
    expect(h).not.toHaveProperty('referer');
    const redirected = navigationHeaders('GET', 'https://login.other.example/', {
      user: true,
      redirectedFrom: ['https://idp.example/authorize'],
    });
    expect(redirected['sec-fetch-site']).toBe('none');
  });

  it('Sec-Fetch-Site from the page acted on, across every URL of the navigation (registrable domain)', () => {
    const page = 'https://login.idp.example/signin?state=s';
    expect(navigationHeaders('POST', 'https://login.idp.example/signin', from(page))['sec-fetch-site']).toBe(
      'same-origin',
    );
    expect(navigationHeaders('POST', 'https://idp.example/session', from(page))['sec-fetch-site']).toBe('same-site');
    expect(navigationHeaders('GET', 'https://rp.test/cb', from(page))['sec-fetch-site']).toBe('cross-site');
    expect(navigationHeaders('GET', 'http://login.idp.example/', from(page))['sec-fetch-site']).toBe('cross-site');
    // A same-origin URL reached through a cross-site hop is cross-site.
    expect(
      navigationHeaders('GET', 'https://login.idp.example/done', {
        ...from(page),
        redirectedFrom: ['https://login.idp.example/signin', 'https://rp.test/bounce'],
      })['sec-fetch-site'],
    ).toBe('cross-site');
    // An auto-submitted form: no Sec-Fetch-User.
    expect(
      navigationHeaders('POST', 'https://idp.example/par', { from: { url: page }, user: false }),
    ).not.toHaveProperty('sec-fetch-user');
  });

  it('Origin on a form POST and Referer by the referrer policy (default strict-origin-when-cross-origin)', () => {
    const page = 'https://login.idp.example/signin?state=s#frag';
    const same = navigationHeaders('POST', 'https://login.idp.example/signin', from(page));
    expect(same.origin).toBe('https://login.idp.example');
    expect(same.referer).toBe('https://login.idp.example/signin?state=s');
    const cross = navigationHeaders('POST', 'https://rp.test/cb', from(page));
    expect(cross.referer).toBe('https://login.idp.example/');
    expect(navigationHeaders('GET', 'http://rp.test/cb', from(page))).not.toHaveProperty('referer');
    expect(navigationHeaders('GET', 'https://rp.test/', from(page))).not.toHaveProperty('origin');
    const none = navigationHeaders('POST', 'https://login.idp.example/x', from(page, 'no-referrer'));
    expect(none.origin).toBe('null');
    expect(none).not.toHaveProperty('referer');
    // The last policy a browser knows wins; an unknown one is ignored.
    const unsafe = navigationHeaders('GET', 'https://rp.test/', from(page, 'no-referrer, unsafe-url, bogus'));
    expect(unsafe.referer).toBe('https://login.idp.example/signin?state=s');
    expect(navigationHeaders('POST', 'https://rp.test/', from(page, 'same-origin')).origin).toBe('null');
  });

  it('a configured User-Agent replaces the default one', () => {
    expect(navigationHeaders('GET', 'https://idp.example/', { user: true }, 'MyBrowser/1.0')['user-agent']).toBe(
      'MyBrowser/1.0',
    );
  });
});
