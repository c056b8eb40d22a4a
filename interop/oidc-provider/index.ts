/**
 * oidc-provider 9 (panva's certified implementation, an npm devDependency), in-process: the
 * fixture in interop/oidc-provider/provider.ts (configured soundly: PKCE, rotation, device flow,
 * introspection, revocation), wrapped as an InteropIdp. Nothing to install; nothing to stop but
 * its HTTP server, since it runs in this process.
 */
import type { InteropIdp, RunningIdp } from '../idp.ts';
import { startOidcProvider } from './provider.ts';

const idp: InteropIdp = {
  name: 'oidc-provider',
  install: async () => {},
  async start({ port, registration }): Promise<RunningIdp> {
    // registration: oidc-provider's features.registration and registrationManagement, open. JWT access tokens
    // (RFC 9068) for the API resource and signed request objects (RFC 9101) on: no other verdict changes.
    const started = await startOidcProvider({
      port,
      apiAccessTokenFormat: 'jwt',
      requestObjects: true,
      ...(registration ? { registration: true } : {}),
    });
    // Generous timeouts: the interop tests run beside the rest of npm test on a loaded machine.
    return {
      targetConfig: { ...started.target, timeouts: { requestMs: 30_000, scenarioMs: 180_000 } },
      stop: () => started.close(),
    };
  },
};

export default idp;
