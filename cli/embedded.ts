/** The embedded reference: a reference server started in-process on a free local port. */
import { createReferenceServer, targetConfig, type ReferenceOptions, type ReferenceServer, type TargetConfig } from '../reference/index.ts';

export interface EmbeddedReference {
  server: ReferenceServer;
  issuer: string;
  /** The target config for it (DESIGN §4), as `serve --target-out` would write it. */
  target: TargetConfig;
}

export async function startEmbeddedReference(options: ReferenceOptions = {}): Promise<EmbeddedReference> {
  const server = createReferenceServer(options);
  const { issuer } = await server.listen(0, '127.0.0.1');
  return { server, issuer, target: targetConfig(server) };
}
