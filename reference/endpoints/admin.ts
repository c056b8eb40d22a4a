/**
 * Admin hooks for test harnesses, mounted only when the server is started with `adminHooks`
 * (never by default): POST {issuer}/admin/{secret}/rotate-keys rotates the signing key, so the
 * jwks.rotation scenario can watch a rotation happen (OIDC Core §10.1.1). The path carries an
 * unguessable secret of this server instance; any other path is simply not found.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ServerContext } from '../context.ts';
import { randomToken } from '../tokens.ts';
import type { Endpoint } from './endpoint.ts';

const SECRETS = new WeakMap<ServerContext, string>();

function secretOf(server: ServerContext): string {
  let secret = SECRETS.get(server);
  if (secret === undefined) {
    secret = randomToken();
    SECRETS.set(server, secret);
  }
  return secret;
}

/** The rotation hook's URL when the admin hooks are on (for `serve --target-out`), else undefined. */
export function rotateKeysHookUrl(server: ServerContext): string | undefined {
  return server.options.adminHooks ? server.url(`/admin/${secretOf(server)}/rotate-keys`) : undefined;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export const adminEndpoint: Endpoint = {
  mount(router, server) {
    if (!server.options.adminHooks) return;
    router.post('/admin/:secret/rotate-keys', (ctx) => {
      if (!same(String(ctx.params.secret ?? ''), secretOf(server))) {
        ctx.status = 404;
        return;
      }
      // The old key stays published until the tokens it signed expire; the flaw drops it at once.
      const key = server.keys.rotate(undefined, { keepOld: !server.flaws.has('rotation-drops-old-key') });
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { kid: key.kid };
    });
  },
};
