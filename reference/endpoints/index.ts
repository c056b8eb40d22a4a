/** Every endpoint of the reference server. A new endpoint is one new file plus one line here. */
import { discoveryEndpoint } from './discovery.ts';
import type { Endpoint } from './endpoint.ts';
import { jwksEndpoint } from './jwks.ts';
import { tokenEndpoint } from './token.ts';

const SERVICE_ENDPOINTS: readonly Endpoint[] = [jwksEndpoint, tokenEndpoint];

export const ENDPOINTS: readonly Endpoint[] = [discoveryEndpoint(SERVICE_ENDPOINTS), ...SERVICE_ENDPOINTS];
