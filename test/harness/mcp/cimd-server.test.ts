import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENTS, MAX_DOCUMENT_BYTES, startCimdServer } from '../../../harness/cimd/server.ts';

describe("the harness's Client ID Metadata Document listener", () => {
  it("serves a role's document at a fresh random path, client_id its URL exactly, only during the run", async () => {
    const cimd = await startCimdServer();
    const other = await startCimdServer();
    try {
      expect(cimd.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const url = cimd.publishRole('public', 'http://127.0.0.1:5555/public/callback');
      const url2 = other.publishRole('public', 'http://127.0.0.1:5555/public/callback');
      // Fresh per run: another listener's segment differs.
      expect(new URL(url).pathname).not.toBe(new URL(url2).pathname);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{16}\/public\.json$/);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toEqual({
        client_id: url,
        client_name: 'idp-conformance public',
        redirect_uris: ['http://127.0.0.1:5555/public/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      // Nothing else: another path, another method.
      expect((await fetch(`${cimd.baseUrl}/public.json`)).status).toBe(404);
      expect((await fetch(url, { method: 'POST', body: 'x' })).status).toBe(404);
      cimd.end();
      expect((await fetch(url)).status).toBe(404);
      expect(() => cimd.publish('{}')).toThrow(/the run has ended/);
    } finally {
      await cimd.close();
      await other.close();
    }
    await expect(fetch(cimd.baseUrl)).rejects.toThrow();
  });

  it("publishes a scenario's documents as given (status, content type), made from their URL", async () => {
    const cimd = await startCimdServer();
    try {
      const text = cimd.publish('not json', { contentType: 'text/plain', status: 200 });
      expect(await (await fetch(text)).text()).toBe('not json');
      const gone = cimd.publish('{}', { status: 410 });
      expect((await fetch(gone)).status).toBe(410);
      const own = cimd.publish((url) => ({ client_id: `${url}#other` }));
      expect(await (await fetch(own)).json()).toEqual({ client_id: `${own}#other` });
      const large = cimd.publish('x'.repeat(100 * 1024));
      expect((await (await fetch(large)).text()).length).toBe(100 * 1024);
    } finally {
      await cimd.close();
    }
  });

  it('is bounded: document size, count, and names', async () => {
    const cimd = await startCimdServer();
    try {
      expect(() => cimd.publish('x'.repeat(MAX_DOCUMENT_BYTES + 1))).toThrow(/at most/);
      expect(() => cimd.publish('{}', { name: '../escape.json' })).toThrow(/letters, digits/);
      for (let i = 0; i < MAX_DOCUMENTS; i++) cimd.publish('{}');
      expect(() => cimd.publish('{}')).toThrow(new RegExp(`at most ${MAX_DOCUMENTS}`));
      expect(cimd.urls).toHaveLength(MAX_DOCUMENTS);
    } finally {
      await cimd.close();
    }
  });

  it('serves under a public base URL with a path, and under the root for a proxy that strips it', async () => {
    const cimd = await startCimdServer({ baseUrl: 'https://cimd.example/idp-conformance/' });
    try {
      const url = cimd.publishRole('public', 'http://127.0.0.1:1/public/callback');
      expect(url).toMatch(/^https:\/\/cimd\.example\/idp-conformance\/[A-Za-z0-9_-]+\/public\.json$/);
      const path = new URL(url).pathname;
      expect(path.startsWith('/idp-conformance/')).toBe(true);
      expect((await fetch(`${cimd.listenUrl}${path}`)).status).toBe(200);
      expect((await fetch(`${cimd.listenUrl}${path.slice('/idp-conformance'.length)}`)).status).toBe(200);
      expect((await fetch(`${cimd.listenUrl}/other${path}`)).status).toBe(404);
    } finally {
      await cimd.close();
    }
  });
});
