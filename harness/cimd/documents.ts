/**
 * The harness's own Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-00 §4.1; MCP
 * 2025-11-25 "Client ID Metadata Documents"): one public client per role that runs the code flow, its `client_id` the
 * document's URL exactly, its redirect URI the loopback one the harness uses for that role (nothing listens there:
 * the walk catches the redirect), `token_endpoint_auth_method` "none" (§4.1 forbids shared secrets in a document).
 */
import { GRANT } from '../../protocol/grants.ts';
import type { ClientRole } from '../model/requirements.ts';

/** The roles the harness identifies by a metadata document: the public code-flow client (no secret to share). */
export const CIMD_ROLES: readonly ClientRole[] = ['public'];

/** The redirect URI of a role on a loopback origin, as the registration of that role uses (role-request.ts). */
export const roleRedirectUri = (loopback: string, role: ClientRole) => `${loopback}/${role}/callback`;

/** A role's document, for the URL it is served at. */
export function cimdDocument(url: string, role: ClientRole, redirectUri: string): Record<string, unknown> {
  return {
    client_id: url,
    client_name: `idp-conformance ${role}`,
    redirect_uris: [redirectUri],
    grant_types: [GRANT.code, GRANT.refresh],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** `base` without trailing slashes, then the path segments joined (each as given). */
export function joinUrl(base: string, ...segments: string[]): string {
  return [base.replace(/\/+$/, ''), ...segments].join('/');
}
