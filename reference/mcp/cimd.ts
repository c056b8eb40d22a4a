/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; MCP 2025-11-25 "Client ID Metadata
 * Documents"): under `mcp`, a client_id that is an https URL with a path names its own registration, which the
 * server fetches (fetch-document.ts), checks and caches as HTTP caching allows. A refused document refuses the client:
 * an OAuthError invalid_client (400), shown on a page at /auth (never redirected: the document's redirect URIs are not
 * trusted) and answered at the token endpoint. Such a client is public (token_endpoint_auth_method none; or
 * private_key_jwt with its keys in `jwks`) and third-party (consent, PKCE S256).
 */
import { z } from 'zod';
import type { Flaws } from '../flaws.ts';
import { OAuthError } from '../oauth-error.ts';
import { OIDC_SCOPES, type RegisteredClient, SCOPES_SUPPORTED } from '../options.ts';
import {
  DOCUMENT_LIMIT_BYTES,
  DocumentFetchError,
  type FetchedDocument,
  FLAWED_LIMIT_BYTES,
  fetchDocument,
} from './fetch-document.ts';
import { isLoopbackHost, redirectUriAllowed } from '../loopback.ts';

/** The most documents kept at once; the oldest goes first. */
export const CACHE_ENTRIES = 100;
/** The longest a document is kept, whatever its max-age says (seconds). */
export const CACHE_MAX_SECONDS = 3600;

export interface CimdSettings {
  flaws: Flaws;
  allowLoopback: boolean;
  oauthOnly: boolean;
  /** Epoch milliseconds (the server's clock). */
  now(): number;
  /** The fetch; tests may count calls. */
  fetch?: (url: URL, allowLoopback: boolean, limit: number) => Promise<FetchedDocument>;
}

/** The draft's §4.1: the secret-based methods are refused (there is no secret to share). */
const AUTH_METHODS = ['none', 'private_key_jwt'] as const;

const DOCUMENT = z.looseObject({
  client_id: z.string(),
  redirect_uris: z.array(z.string().max(2000)).min(1).max(20),
  token_endpoint_auth_method: z.string().optional(),
  client_name: z.string().max(200).optional(),
  scope: z.string().max(1000).optional(),
  grant_types: z.array(z.string()).optional(),
  jwks: z
    .object({
      keys: z
        .array(z.looseObject({ kty: z.string() }))
        .min(1)
        .max(10),
    })
    .optional(),
  client_secret: z.unknown().optional(),
  client_secret_expires_at: z.unknown().optional(),
});

const refused = (description: string) =>
  new OAuthError('invalid_client', `client metadata document refused: ${description}`, { status: 400 });

/**
 * The draft's §3: whether a client_id is a client identifier URL this server resolves (https, with a path, no
 * fragment, no user or password, no dot segments; http on a loopback host only with allowLoopback).
 */
export function isClientIdUrl(clientId: string, allowLoopback: boolean): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  const secure =
    url.protocol === 'https:' || (allowLoopback && url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!secure || url.pathname === '/' || url.hash || clientId.includes('#')) return false;
  if (url.username || url.password) return false;
  const path = clientId.slice(url.origin.length).split(/[?#]/)[0] ?? '';
  return !path.split('/').some((segment) => segment === '.' || segment === '..');
}

/** The resolver of one server: its cache of documents by URL. */
export class ClientMetadataDocuments {
  readonly #cache = new Map<string, { client: RegisteredClient; until: number }>();

  constructor(readonly settings: CimdSettings) {}

  /** The client the document at `clientId` describes; throws invalid_client when it is refused. */
  async resolve(clientId: string): Promise<RegisteredClient> {
    const { now } = this.settings;
    const cached = this.#cache.get(clientId);
    if (cached && cached.until > now()) return cached.client;
    this.#cache.delete(clientId);
    const { flaws, allowLoopback } = this.settings;
    const fetch = this.settings.fetch ?? fetchDocument;
    // Flaw cimd-bad-document-accepted: a document far beyond the draft's 5 kilobytes is read whole.
    const limit = flaws.has('cimd-bad-document-accepted') ? FLAWED_LIMIT_BYTES : DOCUMENT_LIMIT_BYTES;
    let fetched: FetchedDocument;
    try {
      fetched = await fetch(new URL(clientId), allowLoopback, limit);
    } catch (err) {
      if (err instanceof DocumentFetchError) throw refused(err.message);
      throw err;
    }
    // The draft's §4: 200 only; a redirect is never followed (an error response, never cached: §4.4).
    if (fetched.status !== 200) throw refused(`the document URL answered ${fetched.status}, not 200`);
    const client = this.clientOf(clientId, fetched.body);
    const seconds = cacheSeconds(fetched.cacheControl);
    if (seconds > 0) {
      if (this.#cache.size >= CACHE_ENTRIES) this.#cache.delete(this.#cache.keys().next().value ?? '');
      this.#cache.set(clientId, { client, until: now() + seconds * 1000 });
    }
    return client;
  }

  /** The draft's §4.1: a JSON object with client_id equal to its URL and redirect_uris, no shared secret. */
  clientOf(clientId: string, body: string): RegisteredClient {
    const { flaws } = this.settings;
    const lax = flaws.has('cimd-bad-document-accepted');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      // Flaw cimd-bad-document-accepted: what is not JSON is taken as a document that says nothing.
      if (!lax) throw refused('the document is not JSON');
      json = {};
    }
    const parsed = DOCUMENT.safeParse(json);
    if (!parsed.success && !lax) throw refused('the document is not a JSON object with client_id and redirect_uris');
    const doc: Partial<z.infer<typeof DOCUMENT>> = parsed.success ? parsed.data : {};
    // §4.1: "MUST match the URL of the document using simple string comparison" (the flaw reads no client_id).
    const unchecked = flaws.has('cimd-client-id-unchecked') || (lax && doc.client_id === undefined);
    if (doc.client_id !== clientId && !unchecked) throw refused('its client_id differs from its URL');
    const method = doc.token_endpoint_auth_method ?? 'none';
    if (!AUTH_METHODS.some((m) => m === method))
      throw refused(`token_endpoint_auth_method ${method.slice(0, 40)} is not allowed (no shared secret)`);
    if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
      throw refused('client_secret must not be used');
    if (method === 'private_key_jwt' && doc.jwks === undefined)
      throw refused('private_key_jwt needs the keys in jwks (jwks_uri is not fetched)');
    const redirectUris = doc.redirect_uris ?? [];
    const bad = redirectUris.find((uri) => !redirectUriAllowed(uri));
    if (bad !== undefined) throw refused('a redirect URI must be https or an http loopback URI, without a fragment');
    return {
      clientId,
      redirectUris,
      allowedScope: this.scopeOf(doc.scope),
      grantTypes: ['authorization_code', 'refresh_token'],
      firstParty: false,
      name: doc.client_name ?? new URL(clientId).host,
      ...(method === 'private_key_jwt' && doc.jwks ? { jwks: doc.jwks } : { tokenEndpointAuthMethod: 'none' }),
      // A document without redirect_uris, taken by the flaw cimd-bad-document-accepted, then lets any through.
      metadataDocument: { anyRedirectUri: lax && redirectUris.length === 0 },
    };
  }

  /** The scopes the document asks for that this server knows, or all it knows (OIDC's only on an OpenID provider). */
  scopeOf(asked: string | undefined): string {
    const known: string[] = SCOPES_SUPPORTED.filter((s) => !(this.settings.oauthOnly && OIDC_SCOPES.includes(s)));
    const wanted = asked?.split(' ').filter((s) => known.includes(s)) ?? [];
    return (wanted.length > 0 ? wanted : known).join(' ');
  }
}

/** RFC 9111 §5.2.2: no-store and no-cache keep nothing; max-age (bounded by CACHE_MAX_SECONDS) says how long. */
export function cacheSeconds(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return 0;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
  const maxAge = directives.find((d) => /^max-age=\d+$/.test(d));
  const seconds = maxAge === undefined ? 0 : Number(maxAge.slice('max-age='.length));
  return Math.min(seconds, CACHE_MAX_SECONDS);
}
