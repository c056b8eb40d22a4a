/**
 * What the browser driver records is what the IdP sent, whatever the walk does on the way: a page's own
 * Content-Security-Policy stays what it was (the walk adds its connect-src policy to what Chromium enforces, not to
 * the headers judged: oidc-provider's `frame-ancestors 'none'` read as "lets any site frame it" under the browser
 * driver), and a POST redirect says whether it carried the user's password, as the HTTP actuator says of the form it
 * filled (a consent POST without it is not judged by redirect.no-307-after-login).
 */
import { type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { carriesPassword, headerRecord } from '../../harness/login/browser-requests.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import { OriginPolicy } from '../../harness/http/origin.ts';
import { browserPart } from './driver-parts.ts';

const USER = { username: 'alice', password: 'wonderland-77' };
const OWN_CSP = "frame-ancestors 'none'";
const host = new BrowserHost();
let origin = '';
const server = createServer((req, res) => {
  const page = (body: string, extra: Record<string, string> = {}) =>
    res
      .writeHead(200, { 'content-type': 'text/html', 'content-security-policy': OWN_CSP, ...extra })
      .end(`<!doctype html><html><head><title>Sign in</title></head><body>${body}</body></html>`);
  const redirect = (r: ServerResponse, to: string) => r.writeHead(302, { location: to }).end();
  const url = new URL(req.url ?? '/', origin);
  if (req.method === 'GET' && url.pathname === '/authorize')
    return page(
      '<form method="post" action="/login"><input name="username"><input type="password" name="password">' +
        '<button>Sign in</button></form>',
    );
  if (req.method === 'POST' && url.pathname === '/login') return redirect(res, '/consent');
  if (req.method === 'GET' && url.pathname === '/consent')
    return page(
      '<p>Example wants access to your profile</p><form method="post" action="/decide">' +
        '<button name="d" value="allow">Allow</button><button name="d" value="deny">Deny</button></form>',
    );
  if (req.method === 'POST' && url.pathname === '/decide') return redirect(res, `${origin}/cb?code=c1&state=s`);
  res.writeHead(404).end();
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await host.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('the browser driver records what the IdP sent', () => {
  it("keeps a page's own Content-Security-Policy, and says which POST carried the password", async () => {
    const driver = new BrowserLoginDriver({
      ...browserPart(host),
      ...USER,
      origins: new OriginPolicy({ issuer: origin }),
    });
    const outcome = await driver.authorize(`${origin}/authorize?state=s`, [`${origin}/cb`], {
      session: 'fresh',
    });
    expect(outcome).toMatchObject({ kind: 'redirect', params: { code: 'c1' } });
    const visits = outcome.visits ?? [];
    expect(visits.map((v) => v.kind)).toEqual(['login', 'consent']);
    for (const visit of visits) expect(visit.headers['content-security-policy']).toBe(OWN_CSP);
    const posts = (outcome.redirects ?? []).filter((r) => r.method === 'POST');
    expect(posts.map((r) => [new URL(r.url).pathname, r.credentials])).toEqual([
      ['/login', true],
      ['/decide', false],
    ]);
  }, 120_000);
});

describe('the parts', () => {
  it('carriesPassword: a password field, or the value where it is not also the username', () => {
    expect(carriesPassword('username=alice&password=s3cret', 's3cret', 'alice')).toBe(true);
    expect(carriesPassword('user=alice&pwd=other', 's3cret', 'alice')).toBe(true); // a password field, any value
    expect(carriesPassword('d=allow&user=alice', 's3cret', 'alice')).toBe(false);
    expect(carriesPassword('{"login":"alice","secret":"s3cret"}', 's3cret', 'alice')).toBe(true);
    expect(carriesPassword('{"login":"alice","code":"s\\"x"}', 's"x', 'alice')).toBe(true); // JSON-escaped
    // A demo user whose password is its login (dwho/dwho): naming the user is no sign-in.
    expect(carriesPassword('d=allow&user=dwho', 'dwho', 'dwho')).toBe(false);
    expect(carriesPassword('user=dwho&password=dwho', 'dwho', 'dwho')).toBe(true);
    expect(carriesPassword(null, 's3cret', 'alice')).toBe(false);
  });

  it('headerRecord: names lower-cased, repeats joined as HTTP allows, Set-Cookie by newline', () => {
    expect(
      headerRecord([
        { name: 'Content-Security-Policy', value: "frame-ancestors 'none'" },
        { name: 'Vary', value: 'Origin' },
        { name: 'vary', value: 'Accept' },
        { name: 'Set-Cookie', value: 'a=1' },
        { name: 'set-cookie', value: 'b=2' },
      ]),
    ).toEqual({
      'content-security-policy': "frame-ancestors 'none'",
      vary: 'Origin, Accept',
      'set-cookie': 'a=1\nb=2',
    });
  });
});
