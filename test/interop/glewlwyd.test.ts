/**
 * The Glewlwyd 2.7 interop module's configuration (interop/glewlwyd/config.ts), no packages needed: what it writes
 * and registers is what findings.md says a deployment needs. The module against the real package runs in
 * interop.test.ts and sharing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { clientBody, clients, glewlwydConf, nginxConf, oidcPlugin } from '../../interop/glewlwyd/config.ts';

describe('Glewlwyd configuration (no packages needed)', () => {
  const conf = glewlwydConf({ port: 18090, apiPort: 18091, database: '/w/glewlwyd.sqlite3' });

  it('listens on loopback at the API port, with the external URL on the public one', () => {
    expect(conf).toMatch(/^port=18091$/m);
    expect(conf).toMatch(/^bind_address="127\.0\.0\.1"$/m);
    expect(conf).toMatch(/^external_url="http:\/\/127\.0\.0\.1:18090"$/m);
    expect(conf).toContain('path = "/w/glewlwyd.sqlite3"');
  });

  it('serves no static files itself and leaves use_secure_connection out (2.7.5 exits with it false)', () => {
    expect(conf).not.toMatch(/static_files_path/);
    expect(conf).not.toMatch(/use_secure_connection/);
  });

  it('puts nginx on the public port, serving the web app and proxying /api/ and /config/ to the API port', () => {
    const nginx = nginxConf({ port: 18090, apiPort: 18091, webapp: '/w/webapp', dir: '/w/nginx', user: 'www-data' });
    expect(nginx).toMatch(/^user www-data;$/m);
    expect(nginx).toContain('listen 127.0.0.1:18090 default_server;');
    expect(nginx).toContain('server 127.0.0.1:18091;');
    expect(nginx).toContain('root /w/webapp;');
    expect(nginx).toMatch(/location \/api\/ \{\s+proxy_pass http:\/\/glewlwyd;/);
    // /config/ only: a prefix /config would send the web app's config.json to the API ("Error in config file").
    expect(nginx).toMatch(/location \/config\/ \{\s+proxy_pass http:\/\/glewlwyd;/);
    expect(nginx).not.toMatch(/location \/config \{/);
    expect(nginxConf({ port: 1, apiPort: 2, webapp: '/w', dir: '/d' })).not.toMatch(/^user /m);
  });

  it('registers every client with token_endpoint_auth_method (without it no client can authenticate)', () => {
    let n = 0;
    const list = clients(() => `secret-${++n}`);
    expect(list.map((c) => c.role).sort()).toEqual(
      ['confidential', 'confidential2', 'device', 'legacy', 'machine', 'public'].sort(),
    );
    for (const c of list) {
      const body = clientBody(c);
      expect(body.token_endpoint_auth_method, c.role).toEqual(
        c.clientSecret ? ['client_secret_basic', 'client_secret_post'] : ['none'],
      );
      expect(body.confidential, c.role).toBe(c.clientSecret !== undefined);
    }
  });

  it('signs with RS256 and rotates refresh tokens', () => {
    const plugin = oidcPlugin({ issuer: 'http://127.0.0.1:18090/api/oidc', privatePem: 'K', publicPem: 'C' });
    expect(plugin.parameters).toMatchObject({
      'jwt-type': 'rsa',
      'jwt-key-size': '256',
      'refresh-token-one-use': 'always',
    });
    expect(plugin.parameters['pkce-method-plain-allowed']).toBe(false);
  });
});
