/**
 * POST /device/auth (RFC 8628 §3.1–3.2): a device asks for a device code and a user code. Client
 * authentication as at the token endpoint (public clients by client_id); the client must be
 * allowed the device code grant, and the scope must lie within the client's.
 */
import type { ServerContext } from '../context.ts';
import { parseBody } from '../http/body.ts';
import { authenticateClient } from '../http/client-auth.ts';
import { OAuthError, unauthorizedClient } from '../oauth-error.ts';
import { noStore } from '../http/headers.ts';
import { clientEnables, DEVICE_GRANT, type RegisteredClient } from '../options.ts';
import { grantScope } from '../scopes.ts';
import type { DeviceRecord } from '../store/store.ts';
import { randomToken } from '../tokens.ts';
import { displayUserCode, newUserCode } from '../user-code.ts';
import { activationUrl } from './activate.ts';
import type { Endpoint } from './endpoint.ts';

/** RFC 8628 §3.2: the default polling interval, in seconds. */
export const DEFAULT_DEVICE_INTERVAL = 5;

export const deviceAuthorizationEndpoint: Endpoint = {
  mount(router, server) {
    const interval = server.options.deviceInterval ?? DEFAULT_DEVICE_INTERVAL;
    if (!Number.isInteger(interval) || interval < 1) {
      throw new Error(`deviceInterval must be a whole number of seconds, at least 1 (got ${interval})`);
    }
    router.post('/device/auth', noStore(server.flaws), async (ctx) => {
      const params = await parseBody(ctx, ['form', 'json']);
      const { client } = await authenticateClient(ctx, params, (id) => server.findClient(id), server.flaws);
      if (!clientEnables(client, DEVICE_GRANT)) {
        throw unauthorizedClient('the client may not use the device authorization grant');
      }
      const scope = grantScope(params.scope ?? client.allowedScope, client.allowedScope, server.flaws);
      const record = await saveRequest(server, client, scope, interval);
      const userCode = displayUserCode(record.userCode);
      const verificationUri = activationUrl(server);
      ctx.body = {
        device_code: record.deviceCode,
        user_code: userCode,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: userCode })}`,
        expires_in: server.lifetimes.deviceCode,
        interval,
      };
    });
  },
  metadata: (server) => ({ device_authorization_endpoint: server.url('/device/auth') }),
};

/** The flaw device-code-low-entropy's counter (one per process). */
let lowEntropyCodes = 0;

/** Saves a new pending request under a user code no live request holds. */
async function saveRequest(
  server: ServerContext,
  client: RegisteredClient,
  scope: string,
  interval: number,
): Promise<DeviceRecord> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const record: DeviceRecord = {
      // RFC 8628 §5.2: a very high entropy device code; the flaw counts them in eight digits.
      deviceCode: server.flaws.has('device-code-low-entropy')
        ? String(++lowEntropyCodes).padStart(8, '0')
        : randomToken(),
      userCode: newUserCode(),
      grantId: randomToken(),
      clientId: client.clientId,
      scope,
      status: 'pending',
      interval,
      expiresAt: server.now() + server.lifetimes.deviceCode * 1000,
    };
    if (await server.store.saveDevice(record)) return record;
  }
  // 20^8 codes: five collisions in a row mean the store is full, not unlucky.
  throw new OAuthError('temporarily_unavailable', 'no user code is free; try again later');
}
