/**
 * Token exchange (RFC 8693) for downscoping and delegation: an access token of this server (the
 * subject, verified like every presented token) becomes a new access token for the asking
 * client, with the subject's sub and at most the subject's scope. An actor token makes it a
 * delegation, recorded in `act` (§4.1). No refresh token, no ID token.
 */
import type { ServerContext } from '../context.ts';
import { invalidRequest, invalidScope, OAuthError } from '../oauth-error.ts';
import type { RegisteredClient } from '../options.ts';
import { grantScope, narrowScope, parseScope } from '../scopes.ts';
import type { ActClaim } from '../tokens.ts';
import { InvalidTokenError, readUnverifiedSubject, verifyPresentedAccessToken, type SubjectClaims } from '../verify.ts';
import type { Grant } from './grant.ts';
import { issueTokens } from './issue.ts';
import { GRANT, TOKEN_TYPE } from '../../protocol/grants.ts';

export const TOKEN_EXCHANGE_GRANT = GRANT.exchange;
/** RFC 8693 §3: the only token type this server takes and issues. */
export const ACCESS_TOKEN_TYPE = TOKEN_TYPE.accessToken;

export const tokenExchange: Grant = {
  grantType: TOKEN_EXCHANGE_GRANT,
  parameters: [
    'subject_token',
    'subject_token_type',
    'actor_token',
    'actor_token_type',
    'requested_token_type',
    'scope',
    'audience',
    'resource',
  ],
  async handler({ server, client, params }) {
    const subjectToken = required(params.subject_token, 'subject_token');
    expectAccessTokenType(required(params.subject_token_type, 'subject_token_type'), 'subject_token_type');
    if (params.requested_token_type !== undefined)
      expectAccessTokenType(params.requested_token_type, 'requested_token_type');
    checkTarget(server, params.audience, 'audience');
    checkTarget(server, params.resource, 'resource');

    const { claims, grantId } = await verifiedSubject(server, subjectToken);
    const act = await actClaim(server, params.actor_token, params.actor_token_type, claims);
    const scope = exchangeScope(server, client, params.scope, claims.scope);

    const response = await issueTokens(server, {
      client,
      sub: claims.sub,
      scope,
      ...(grantId === undefined ? {} : { grantId }),
      ...(act === undefined ? {} : { act }),
    });
    return { ...response, issued_token_type: ACCESS_TOKEN_TYPE };
  },
};

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw invalidRequest(`${name} is required`);
  return value;
}

function expectAccessTokenType(value: string, name: string): void {
  if (value !== ACCESS_TOKEN_TYPE) throw invalidRequest(`${name} must be ${ACCESS_TOKEN_TYPE}`);
}

/** §2.2.2: the only audience and resource this server issues tokens for is itself. */
function checkTarget(server: ServerContext, value: string | undefined, name: string): void {
  if (value !== undefined && value !== server.issuer) {
    throw new OAuthError('invalid_target', `tokens can be issued only for ${server.issuer} (${name})`);
  }
}

/** The subject's claims and, when the Store knows it, its grant: the new token is revoked with it. */
async function verifiedSubject(
  server: ServerContext,
  token: string,
): Promise<{ claims: SubjectClaims; grantId?: string }> {
  if (server.flaws.has('exchange-subject-unverified'))
    return { claims: await presented(() => readUnverifiedSubject(token), 'subject_token') };
  return presented(() => verifyPresentedAccessToken(server, token), 'subject_token');
}

/** §2.2.2: an invalid subject or actor token, for whatever reason, is invalid_request. */
async function presented<T>(read: () => T | Promise<T>, name: string): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof InvalidTokenError) throw invalidRequest(`the ${name} is invalid: ${err.message}`);
    throw err;
  }
}

/** §4.1: the actor acts for the subject; an earlier delegation of the subject nests inside. */
async function actClaim(
  server: ServerContext,
  actorToken: string | undefined,
  actorTokenType: string | undefined,
  subject: SubjectClaims,
): Promise<ActClaim | undefined> {
  // §2.1: actor_token_type is required with actor_token and must not appear without it.
  if (actorToken === undefined) {
    if (actorTokenType !== undefined) throw invalidRequest('actor_token_type without actor_token');
    return subject.act;
  }
  expectAccessTokenType(required(actorTokenType, 'actor_token_type'), 'actor_token_type');
  const actor = await presented(() => verifyPresentedAccessToken(server, actorToken), 'actor_token');
  return { sub: actor.claims.sub, ...(subject.act === undefined ? {} : { act: subject.act }) };
}

/**
 * The scope of the new token: the requested one, which must lie within the subject's scope
 * (§2.1, SPEC token rule 3) and within what the client may hold (SPEC errors 4); without a
 * request, the subject's scope as far as the client may hold it.
 */
function exchangeScope(
  server: ServerContext,
  client: RegisteredClient,
  requested: string | undefined,
  subjectScope: string,
): string {
  const { flaws } = server;
  if (requested === undefined) {
    const allowed = new Set(parseScope(client.allowedScope));
    const scope = parseScope(subjectScope).filter((token) => allowed.has(token));
    if (scope.length === 0) throw invalidScope('the subject token holds no scope this client may be granted');
    return scope.join(' ');
  }
  const withinSubject = flaws.has('exchange-upscope') ? requested : narrowScope(requested, subjectScope);
  return grantScope(withinSubject, client.allowedScope, flaws);
}
