/**
 * Client authentication at the token endpoint (RFC 6749 §2.3): client_secret_basic,
 * client_secret_post, and none for public clients. Exactly one method per request.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { Flaws } from '../flaws.ts';
import type { ClientConfig } from '../options.ts';
import { digest } from '../safe-equal.ts';
import type { Params } from './body.ts';
import { invalidClient, invalidRequest } from '../oauth-error.ts';

export interface AuthenticatedClient {
  client: ClientConfig;
  method: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
}

export async function authenticateClient(
  ctx: Context,
  params: Params,
  findClient: (clientId: string) => Promise<ClientConfig | undefined>,
  flaws: Flaws,
): Promise<AuthenticatedClient> {
  const basic = parseBasic(ctx.get('authorization'));
  if (basic && params.client_secret !== undefined) {
    throw invalidRequest('the client used more than one authentication method (Basic and client_secret)');
  }
  if (basic && params.client_id !== undefined && params.client_id !== basic.id) {
    throw invalidRequest('client_id in the body differs from the one in the Authorization header');
  }
  const clientId = basic?.id ?? params.client_id;
  if (clientId === undefined) throw invalidClient('client authentication is required');
  const secret = basic?.secret ?? params.client_secret;
  const client = await findClient(clientId);
  if (!client) throw invalidClient('client authentication failed');
  // A client with registered keys authenticates with a signed assertion only (http/client-assertion.ts).
  if (client.jwks !== undefined)
    throw invalidClient('this client authenticates with private_key_jwt (a client assertion)');

  if (client.clientSecret === undefined) {
    if (secret !== undefined) throw invalidClient('a public client must not present a secret');
    return { client, method: 'none' };
  }
  if (secret === undefined) throw invalidClient('client authentication failed');
  if (!flaws.has('client-secret-unchecked') && !secretMatches(secret, client, client.clientSecret)) {
    throw invalidClient('client authentication failed');
  }
  const method = basic ? 'client_secret_basic' : 'client_secret_post';
  // A client pinned to one method (options tokenEndpointAuthMethod) may not use the other.
  if (client.tokenEndpointAuthMethod !== undefined && client.tokenEndpointAuthMethod !== method) {
    throw invalidClient(`this client authenticates with ${client.tokenEndpointAuthMethod}`);
  }
  return { client, method };
}

/**
 * Each client's secret digest, made once per client object and secret (not per request): the object a configured
 * client is, and the secret it had when digested, so that a changed secret is digested afresh.
 */
const secretDigests = new WeakMap<ClientConfig, { secret: string; digest: Buffer }>();

/** safeEqual(presented, expected), where expected is the client's secret: its digest made once. */
function secretMatches(presented: string, client: ClientConfig, expected: string): boolean {
  let known = secretDigests.get(client);
  if (known?.secret !== expected) {
    known = { secret: expected, digest: digest(expected) };
    secretDigests.set(client, known);
  }
  return timingSafeEqual(digest(presented), known.digest);
}

/**
 * `Authorization: Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1).
 * Returns undefined when the header is absent or uses another scheme; a broken Basic header
 * is invalid_client.
 */
function parseBasic(header: string): { id: string; secret: string } | undefined {
  const match = /^basic\s+(.*)$/i.exec(header.trim());
  if (!match) {
    if (header.trim() !== '') throw invalidClient('unsupported Authorization scheme at the token endpoint');
    return undefined;
  }
  const encoded = (match[1] ?? '').trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) throw invalidClient('malformed Basic credentials');
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('malformed Basic credentials');
  try {
    const id = formDecode(decoded.slice(0, colon));
    const secret = formDecode(decoded.slice(colon + 1));
    if (id === '') throw new Error('empty client id');
    return { id, secret };
  } catch {
    throw invalidClient('malformed Basic credentials');
  }
}

const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
