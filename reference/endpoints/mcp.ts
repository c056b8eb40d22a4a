/**
 * `serve --mcp`: the protected MCP endpoint at {issuer}/mcp (mcp/resource-server.ts), and the authorization server
 * metadata's client_id_metadata_document_supported (draft-ietf-oauth-client-id-metadata-document §5; mcp/cimd.ts
 * resolves such client_ids). Nothing without the option.
 */
import type { Context } from 'koa';
import { noStore } from '../http/headers.ts';
import { mcp } from '../mcp/resource-server.ts';
import type { Endpoint } from './endpoint.ts';

export const mcpEndpoint: Endpoint = {
  mount(router, server) {
    if (!server.options.mcp) return;
    const handler = (ctx: Context) => mcp(ctx, server);
    router.post('/mcp', noStore(server.flaws), handler);
    router.get('/mcp', noStore(server.flaws), handler);
  },
  metadata: (server) => (server.options.mcp ? { client_id_metadata_document_supported: true } : {}),
};
