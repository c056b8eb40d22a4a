/**
 * Browser walks do not load images, fonts or media unless login.loadAssets says so: a sign-in needs none of them, and
 * every one is a request the IdP serves for nothing (one IdP leaked a file descriptor per static file it served).
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserLoginDriver } from '../../harness/login/browser.ts';
import { BrowserHost } from '../../harness/login/chromium.ts';
import { USER } from './fixtures.ts';

const BROWSER_TEST_MS = 120_000;
const host = new BrowserHost();
let server: Server;
let base: string;
const hits: string[] = [];
const REDIRECT_URI = 'http://127.0.0.1:9/cb';

const LOGIN = `<!doctype html><html><head><title>Sign in</title></head><body>
<img src="/logo.png" alt="logo"><video src="/intro.mp4"></video>
<style>@font-face { font-family: F; src: url(/f.woff2); } body { font-family: F; }</style>
<form method="post" action="/login"><input name="username"><input type="password" name="password">
<button type="submit">Sign in</button></form></body></html>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url?.startsWith('/authorize')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(LOGIN);
    } else if (req.url === '/login' && req.method === 'POST') {
      req.resume();
      req.on('end', () => res.writeHead(302, { location: `${REDIRECT_URI}?code=c-1&state=s` }).end());
    } else if (req.url === '/logo.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex'));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await host.close();
  await new Promise((resolve) => server.close(resolve));
});

async function signIn(loadAssets: boolean): Promise<string[]> {
  hits.length = 0;
  const driver = new BrowserLoginDriver({
    newContext: (state) => host.newContext(state),
    ...USER,
    timeoutMs: 20_000,
    recorder: { screenshot: async () => undefined, transcript: () => undefined },
    ...(loadAssets ? { loadAssets } : {}),
  });
  const outcome = await driver.authorize(`${base}/authorize?state=s`, [REDIRECT_URI]);
  expect(outcome).toMatchObject({ kind: 'redirect', params: { code: 'c-1' } });
  return [...hits];
}

describe('login.loadAssets', () => {
  it(
    'by default, a browser walk signs in without requesting the page image, video or font',
    async () => {
      const seen = await signIn(false);
      expect(seen).toContain('/login');
      expect(seen.filter((u) => /\.(png|mp4|woff2)$/.test(u))).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'with loadAssets true, the image is requested (the switch is what keeps them out)',
    async () => {
      const seen = await signIn(true);
      expect(seen).toContain('/logo.png');
    },
    BROWSER_TEST_MS,
  );
});
