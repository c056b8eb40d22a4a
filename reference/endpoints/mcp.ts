/**
 * `serve --mcp`: the authorization server metadata's client_id_metadata_document_supported
 * (draft-ietf-oauth-client-id-metadata-document §5; mcp/cimd.ts resolves such client_ids). The protected endpoint
 * itself is at the issuer's origin, not under its path: server.ts puts mcp/resource-server.ts's routes ahead of the
 * router. Nothing without the option.
 */
import type { Endpoint } from './endpoint.ts';

export const mcpEndpoint: Endpoint = {
  mount() {},
  metadata: (server) => (server.options.mcp ? { client_id_metadata_document_supported: true } : {}),
};
