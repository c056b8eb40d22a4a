/**
 * The run's Client ID Metadata Documents (harness/cimd/): whether the run opens a listener, and which of its clients
 * are identified by a document instead of an RFC 7591 registration. A listener opens when the config has a `cimd`
 * section, or for a loopback target (which can fetch from 127.0.0.1) under an MCP profile or advertising
 * `client_id_metadata_document_supported` (MCP 2025-06-18, which knows no documents, aside). The public code-flow
 * role becomes a CIMD client when registration is on (--register, or an MCP profile), the authorization server
 * advertises support and a listener exists, except under MCP 2025-06-18; every other role is registered by RFC 7591
 * as before.
 */
import type { ClientEntry, TargetConfig } from '../config/schema.ts';
import { CIMD_ROLES, roleRedirectUri } from '../cimd/documents.ts';
import { type CimdServer, startCimdServer } from '../cimd/server.ts';
import { unusedLoopbackPort } from '../http/ports.ts';
import type { ClientRole } from '../model/requirements.ts';
import type { ProfileName } from '../model/results.ts';
import { rolesToRegister } from '../registration/session.ts';
import type { Target } from '../target/target.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether the authorization server says it takes client_id metadata document URLs (CIMD §5). */
export const advertisesCimd = (target: Target): boolean =>
  target.discovery?.client_id_metadata_document_supported === true;

/** The listener this run opens, or undefined when it opens none. */
export async function openRunCimd(
  config: TargetConfig,
  target: Target,
  profile: ProfileName,
): Promise<CimdServer | undefined> {
  if (config.cimd)
    return startCimdServer({
      ...(config.cimd.listen ? { listen: config.cimd.listen } : {}),
      ...(config.cimd.baseUrl ? { baseUrl: config.cimd.baseUrl } : {}),
    });
  const loopback = LOOPBACK_HOSTS.has(new URL(config.issuer).hostname);
  const mcpWithCimd = profile.startsWith('mcp-') && profile !== 'mcp-2025-06-18';
  if (loopback && (mcpWithCimd || advertisesCimd(target))) return startCimdServer();
  return undefined;
}

/**
 * The roles identified by a document for this run, each with its config entry (client_id its document's URL); the
 * documents are published on `cimd`. None unless registration is on and the authorization server advertises CIMD.
 */
export async function cimdClients(
  config: TargetConfig,
  target: Target,
  cimd: CimdServer | undefined,
  needed: Iterable<ClientRole>,
  profile: ProfileName,
): Promise<Map<ClientRole, ClientEntry>> {
  const out = new Map<ClientRole, ClientEntry>();
  // Revision 2025-06-18 knows no metadata documents: its clients register by RFC 7591.
  if (!cimd || !advertisesCimd(target) || profile === 'mcp-2025-06-18') return out;
  const roles = rolesToRegister(config, needed).filter((role) => CIMD_ROLES.includes(role));
  if (!roles.length) return out;
  const loopback = `http://127.0.0.1:${await unusedLoopbackPort()}`;
  for (const role of roles) {
    const redirectUri = roleRedirectUri(loopback, role);
    const clientId = cimd.publishRole(role, redirectUri);
    // No scope: a document registers none, so the default applies and is marked a guess (Client.scopeGuessed).
    out.set(role, { clientId, redirectUri, authMethod: 'none' });
  }
  return out;
}
