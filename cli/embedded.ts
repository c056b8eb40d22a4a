/** The embedded reference: a reference server started in-process on a free local port. */
import {
  createReferenceServer,
  targetConfig,
  type ReferenceOptions,
  type ReferenceServer,
  type TargetConfig,
} from '../reference/index.ts';
import { unusedLoopbackPort } from '../harness/http/ports.ts';

export interface EmbeddedReference {
  server: ReferenceServer;
  issuer: string;
  /** The target config for it (docs/target-config.md), as `serve --target-out` would write it. */
  target: TargetConfig;
}

/**
 * The device polling interval of the embedded reference, in seconds: the shortest the reference
 * allows, so the device scenarios (which keep the interval, as a device must) finish quickly.
 * A standalone `serve` keeps the RFC 8628 default of 5.
 */
export const EMBEDDED_DEVICE_INTERVAL = 1;

export async function startEmbeddedReference(
  options: ReferenceOptions = {},
  /** Called before it listens, e.g. to put a middleware in front of the app's (bench/latency.ts counts requests). */
  beforeListen?: (server: ReferenceServer) => void,
): Promise<EmbeddedReference> {
  // The embedded reference is the harness's own, on loopback: its key-rotation hook is on, so
  // jwks.rotation runs against it (a standalone `serve` needs --admin-hooks); so is open dynamic
  // client registration, for the registration scenarios (`serve --registration`).
  // The seeded confidential client's backchannel_logout_uri: a free loopback port, where logout.back-channel listens
  // for the logout token.
  const receiver = `http://127.0.0.1:${await unusedLoopbackPort()}/backchannel-logout`;
  const server = createReferenceServer({
    deviceInterval: EMBEDDED_DEVICE_INTERVAL,
    adminHooks: true,
    registration: true,
    backchannelLogoutUri: receiver,
    ...options,
  });
  beforeListen?.(server);
  const { issuer } = await server.listen(0, '127.0.0.1');
  return { server, issuer, target: targetConfig(server) };
}
