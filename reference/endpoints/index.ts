/** Every endpoint of the reference server. A new endpoint is one new file plus one line here. */
import { activateEndpoint } from './activate.ts';
import { adminEndpoint } from './admin.ts';
import { authorizeEndpoint } from './authorize.ts';
import { deviceAuthorizationEndpoint } from './device-authorization.ts';
import { discoveryEndpoint } from './discovery.ts';
import type { Endpoint } from './endpoint.ts';
import { endSessionEndpoint } from './end-session.ts';
import { interactionEndpoint } from './interaction.ts';
import { introspectionEndpoint } from './introspection.ts';
import { jwksEndpoint } from './jwks.ts';
import { mcpEndpoint } from './mcp.ts';
import { parEndpoint } from './par.ts';
import { registrationEndpoint } from './registration.ts';
import { revocationEndpoint } from './revocation.ts';
import { tokenEndpoint } from './token.ts';
import { userinfoEndpoint } from './userinfo.ts';

const SERVICE_ENDPOINTS: readonly Endpoint[] = [
  authorizeEndpoint,
  interactionEndpoint,
  tokenEndpoint,
  jwksEndpoint,
  deviceAuthorizationEndpoint,
  activateEndpoint,
  userinfoEndpoint,
  revocationEndpoint,
  introspectionEndpoint,
  endSessionEndpoint,
  adminEndpoint,
  parEndpoint,
  registrationEndpoint,
  mcpEndpoint,
];

export const ENDPOINTS: readonly Endpoint[] = [discoveryEndpoint(SERVICE_ENDPOINTS), ...SERVICE_ENDPOINTS];
