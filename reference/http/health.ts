/**
 * GET /healthz and GET /readyz, for load balancers and Kubernetes probes (issue 43), at the server's root and under
 * the issuer's path. /healthz: the process answers (200). /readyz: 200 when the store answers (within the store
 * timeout) and a signing key is loaded, and the server is not stopping; 503 otherwise. Neither says more than
 * `{"status":"ok"}` or `{"status":"unavailable"}`: no configuration, no address, no reason.
 */
import type { Context, Next } from 'koa';
import type { KeySet } from '../keys.ts';
import type { Store } from '../store/store.ts';

export interface HealthSources {
  store: Store;
  keys: KeySet;
  /** The issuer's path ('' or '/tenant'). */
  prefix: string;
  /** True once a graceful stop began: the instance is to be taken out of the load balancer. */
  stopping(): boolean;
}

export function healthRoutes(sources: HealthSources) {
  const paths = new Map<string, 'healthz' | 'readyz'>();
  for (const base of new Set(['', sources.prefix])) {
    paths.set(`${base}/healthz`, 'healthz');
    paths.set(`${base}/readyz`, 'readyz');
  }
  return async function health(ctx: Context, next: Next): Promise<void> {
    const probe = paths.get(ctx.path);
    if (probe === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const ok = probe === 'healthz' || (await ready(sources));
    ctx.status = ok ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: ok ? 'ok' : 'unavailable' };
  };
}

async function ready({ store, keys, stopping }: HealthSources): Promise<boolean> {
  if (stopping() || keys.all.length === 0) return false;
  try {
    // A store without ready(): one read that any store answers (a guarded store bounds it by its timeout).
    if (store.ready) await store.ready();
    else await store.isGrantRevoked('readyz-probe');
    return true;
  } catch {
    return false;
  }
}
