/** The JWK Set at jwks_uri (RFC 7517 §5): public keys only, each with kid, alg and use. */
import type { Endpoint } from './endpoint.ts';

export const jwksEndpoint: Endpoint = {
  mount(router, server) {
    router.get('/jwks', (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=60');
      ctx.type = 'application/json';
      ctx.body = server.flaws.has('jwks-leaks-private') ? server.keys.privateJwks() : server.keys.publicJwks();
    });
  },
  metadata: (server) => ({ jwks_uri: server.url('/jwks') }),
};
