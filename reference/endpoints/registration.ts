/**
 * POST /register: dynamic client registration (RFC 7591 §3), open or with an initial access token;
 * GET, PUT and DELETE /register/{client_id}: its management (RFC 7592 §2) with the registration
 * access token the registration issued. Mounted, and advertised as registration_endpoint, only
 * with the `registration` option (`serve --registration`).
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { parseJsonBody } from '../http/body.ts';
import { bearerChallenge, bearerError, bearerToken } from '../http/bearer.ts';
import { safeEqual } from '../safe-equal.ts';
import { invalidRequest, OAuthError } from '../oauth-error.ts';
import { noStore } from '../http/headers.ts';
import { checkMetadata, usesSecret } from '../registration.ts';
import type { ClientRegistrationRecord } from '../store/store.ts';
import { randomToken } from '../tokens.ts';
import type { Endpoint } from './endpoint.ts';

const PATH = '/register';

/** RFC 7592 §2.2: fields an update must not carry; ignored when it does (the server sets them). */
const SERVER_FIELDS = ['registration_access_token', 'registration_client_uri', 'client_secret_expires_at'];

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('base64url');
const invalidMetadata = (description: string) => new OAuthError('invalid_client_metadata', description);

export const registrationEndpoint: Endpoint = {
  mount(router, server) {
    const settings = server.registration;
    if (!settings) return;
    const headers = noStore(server.flaws);
    router.post(PATH, headers, async (ctx) => {
      const expected = settings.initialAccessToken;
      if (expected !== undefined) {
        const token = await bearerToken(ctx);
        if (token === undefined) return bearerChallenge(ctx);
        if (!safeEqual(token, expected)) throw bearerError('invalid_token', 'the initial access token is not valid');
      }
      const metadata = checkMetadata(server, await parseJsonBody(ctx, invalidMetadata));
      const registrationToken = randomToken();
      const issuedAt = Math.floor(server.now() / 1000);
      const record: ClientRegistrationRecord = {
        clientId: `dyn-${randomToken().slice(0, 22)}`,
        ...(usesSecret(metadata.token_endpoint_auth_method) ? { clientSecret: randomToken() } : {}),
        registrationTokenHash: hashOf(registrationToken),
        issuedAt,
        metadata,
        expiresAt: (issuedAt + settings.clientLifetime) * 1000,
      };
      await server.store.saveClientRegistration(record);
      ctx.status = 201;
      ctx.body = clientInformation(server, record, registrationToken);
    });
    const client = `${PATH}/:clientId`;
    router.get(client, headers, async (ctx) => {
      const found = await authorized(ctx, server);
      if (!found) return;
      ctx.body = clientInformation(server, found.record, found.token);
    });
    router.put(client, headers, async (ctx) => {
      const found = await authorized(ctx, server);
      if (!found) return;
      const body = await parseJsonBody(ctx, invalidMetadata);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw invalidMetadata('the request body must be a JSON object of client metadata');
      }
      const fields: Record<string, unknown> = { ...body };
      // RFC 7592 §2.2: the request carries the client's own client_id, and its secret only unchanged.
      if (fields.client_id !== found.record.clientId) throw invalidRequest('client_id must be this client_id');
      if (fields.client_secret !== undefined && fields.client_secret !== found.record.clientSecret) {
        throw invalidRequest('client_secret does not match the client secret issued');
      }
      for (const field of ['client_id', 'client_secret', 'client_id_issued_at', ...SERVER_FIELDS]) delete fields[field];
      const metadata = checkMetadata(server, fields);
      const { clientSecret: _old, ...rest } = found.record;
      const secret = usesSecret(metadata.token_endpoint_auth_method)
        ? (found.record.clientSecret ?? randomToken())
        : undefined;
      const record: ClientRegistrationRecord = { ...rest, ...(secret ? { clientSecret: secret } : {}), metadata };
      await server.store.saveClientRegistration(record);
      ctx.body = clientInformation(server, record, found.token);
    });
    router.delete(client, headers, async (ctx) => {
      const found = await authorized(ctx, server);
      if (!found) return;
      // Flaw registration-delete-keeps-client: answers as deleted, keeps the client.
      if (!server.flaws.has('registration-delete-keeps-client')) {
        await server.store.deleteClientRegistration(found.record.clientId);
      }
      ctx.status = 204;
    });
  },
  metadata: (server) => (server.registration ? { registration_endpoint: server.url(PATH) } : {}),
};

/**
 * RFC 7592 §2: the registration the request names, when it presents that registration's access
 * token. Undefined (after answering 401 with the Bearer challenge) when it presents none; a wrong
 * token, or a client that does not exist, is 401 invalid_token (RFC 6750 §3.1, RFC 7592 §2.1).
 */
async function authorized(
  ctx: Context,
  server: ServerContext,
): Promise<{ record: ClientRegistrationRecord; token: string } | undefined> {
  const token = await bearerToken(ctx);
  const unchecked = server.flaws.has('registration-management-open');
  if (token === undefined && !unchecked) {
    bearerChallenge(ctx);
    return undefined;
  }
  const record = await server.store.findClientRegistration(String(ctx.params.clientId ?? ''));
  const valid = record !== undefined && token !== undefined && safeEqual(hashOf(token), record.registrationTokenHash);
  // Flaw registration-management-open: any token, or none, reads and changes the registration.
  if (!record || (!valid && !unchecked)) {
    throw bearerError('invalid_token', 'the registration access token is not valid for this client');
  }
  return { record, token: token ?? '' };
}

/**
 * RFC 7591 §3.2.1, RFC 7592 §3: the client information response: the credentials, then every
 * registered metadata field. The registration access token is returned as presented (it is not
 * kept, only its hash).
 */
function clientInformation(
  server: ServerContext,
  record: ClientRegistrationRecord,
  registrationToken: string,
): Record<string, unknown> {
  const { flaws } = server;
  const secret = record.clientSecret;
  return {
    client_id: record.clientId,
    ...(secret === undefined ? {} : { client_secret: secret }),
    client_id_issued_at: record.issuedAt,
    // REQUIRED with a client_secret (RFC 7591 §3.2.1): the secret expires with the registration.
    ...(secret === undefined || flaws.has('registration-no-secret-expiry')
      ? {}
      : { client_secret_expires_at: Math.floor(record.expiresAt / 1000) }),
    ...(registrationToken === '' ? {} : { registration_access_token: registrationToken }),
    registration_client_uri: server.url(`${PATH}/${encodeURIComponent(record.clientId)}`),
    ...(flaws.has('registration-drops-metadata') ? {} : record.metadata),
  };
}
