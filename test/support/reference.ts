/**
 * The reference server as tests talk to it: started on 127.0.0.1, tokens obtained through its
 * real login page (code + PKCE, by the harness's form login driver), and form POSTs authenticated as a
 * client. Every request goes over HTTP, as a client's would.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  createReferenceServer,
  SEEDED_CLIENTS,
  SEEDED_USER,
  type ClientConfig,
  type ReferenceOptions,
  type ReferenceServer,
} from '../../reference/index.ts';
import { redirectAfterLogin } from './form-login.ts';

export type Json = Record<string, unknown>;

export interface HttpResult {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

export interface RunningReference {
  server: ReferenceServer;
  issuer: string;
  url(path: string): string;
  close(): Promise<void>;
}

export async function startReference(options: ReferenceOptions = {}): Promise<RunningReference> {
  const server = createReferenceServer(options);
  const { issuer } = await server.listen(0, '127.0.0.1');
  return { server, issuer, url: (path) => `${issuer}${path}`, close: () => server.close() };
}

/** How a request authenticates: HTTP Basic with the secret, or client_id in the body without one. */
export type Caller = Pick<ClientConfig, 'clientId' | 'clientSecret'>;

export async function postForm(
  url: string,
  params: Record<string, string>,
  caller?: Caller,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const body = new URLSearchParams(params);
  const all: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', ...headers };
  if (caller?.clientSecret !== undefined) all.authorization = basic(caller.clientId, caller.clientSecret);
  else if (caller) body.set('client_id', caller.clientId);
  return read(await fetch(url, { method: 'POST', headers: all, body }));
}

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

export async function read(response: Response): Promise<HttpResult> {
  const text = await response.text();
  let body: Json = {};
  try {
    body = JSON.parse(text) as Json;
  } catch {
    // Not JSON (an empty 200 from /revoke, say): `text` has it.
  }
  return { status: response.status, headers: response.headers, body, text };
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope: string;
  [name: string]: unknown;
}

/** Tokens of a first-party client by the code flow through the login page (no consent page). */
export async function codeFlowTokens(
  ref: RunningReference,
  client: ClientConfig = SEEDED_CLIENTS.confidential,
  scope = client.allowedScope,
): Promise<Tokens> {
  const redirectUri = client.redirectUris[0];
  if (redirectUri === undefined) throw new Error(`client ${client.clientId} has no redirect_uri`);
  const verifier = randomBytes(32).toString('base64url');
  const start = new URL(ref.url('/auth'));
  start.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope,
    state: randomBytes(8).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const end = await redirectAfterLogin(start, redirectUri, SEEDED_USER);
  const code = end.searchParams.get('code');
  if (!code) throw new Error(`the code flow ended without a code: ${end.href}`);
  return tokenRequest(ref, client, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
}

/** A successful token request, or an Error naming the response. */
export async function tokenRequest(
  ref: RunningReference,
  client: Caller,
  params: Record<string, string>,
): Promise<Tokens> {
  const result = await postForm(ref.url('/token'), params, client);
  if (result.status !== 200) throw new Error(`token request failed: ${result.status} ${result.text}`);
  return result.body as Tokens;
}

export const clientCredentialsToken = (ref: RunningReference, client: Caller, scope?: string) =>
  tokenRequest(ref, client, { grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) });

export const userinfo = async (ref: RunningReference, token: string) =>
  read(await fetch(ref.url('/userinfo'), { headers: { authorization: `Bearer ${token}` } }));

export const introspect = (
  ref: RunningReference,
  token: string,
  caller: Caller = SEEDED_CLIENTS.confidential,
  extra: Record<string, string> = {},
) => postForm(ref.url('/introspect'), { token, ...extra }, caller);

export const revoke = (
  ref: RunningReference,
  token: string,
  caller: Caller = SEEDED_CLIENTS.confidential,
  extra: Record<string, string> = {},
) => postForm(ref.url('/revoke'), { token, ...extra }, caller);

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** A token exchange request by the exchange client (or `caller`) for `subject`. */
export const exchange = (
  ref: RunningReference,
  subject: string,
  extra: Record<string, string> = {},
  caller: Caller = SEEDED_CLIENTS.exchange,
) =>
  postForm(
    ref.url('/token'),
    { grant_type: TOKEN_EXCHANGE, subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, ...extra },
    caller,
  );
