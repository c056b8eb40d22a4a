/**
 * GET and POST /session/end: RP-Initiated Logout 1.0. The RP sends the user here with
 * id_token_hint, client_id, post_logout_redirect_uri and state. The user is asked unless the hint
 * shows the request comes for the session's own user (§2: the OP SHOULD ask); the session then
 * ends, and the user goes back to post_logout_redirect_uri only when it is registered for the
 * client exactly (§3), with state (§2). Anything unverifiable gets a page, never a redirect.
 * The session's clients are told: back-channel logout tokens POSTed in the background (OIDC Back-Channel
 * Logout §2.5), front-channel logout URIs framed by the logged-out page (Front-Channel Logout §4).
 */
import type { Context } from 'koa';
import { LOGOUT_TOKEN_PARAM } from '../../protocol/logout.ts';
import type { ServerContext } from '../context.ts';
import { parseBody, parseQuery, type Params } from '../http/body.ts';
import { invalidRequest } from '../oauth-error.ts';
import { pageHeaders } from '../http/headers.ts';
import { pageErrors, renderPage } from '../http/pages.ts';
import { readIdTokenHint } from '../id-token-hint.ts';
import type { RegisteredClient } from '../options.ts';
import type { SessionRecord } from '../store/store.ts';
import { langOf } from '../views/locale.ts';
import { loggedOutPage, logoutConfirmPage } from '../views/logout.ts';
import type { Endpoint } from './endpoint.ts';
import { currentSession, endSession } from './login-session.ts';

const PATH = '/session/end';

export const endSessionEndpoint: Endpoint = {
  mount(router, server) {
    const errors = pageErrors(server);
    router.get(PATH, errors, (ctx) => logout(ctx, server, parseQuery(ctx.querystring)));
    router.post(PATH, errors, async (ctx) => logout(ctx, server, await parseBody(ctx, ['form'])));
  },
  metadata: (server) => ({
    end_session_endpoint: server.url(PATH),
    // OIDC Back-Channel Logout §2.1 and Front-Channel Logout §3: both are offered, with sid (in ID tokens too).
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    frontchannel_logout_supported: true,
    frontchannel_logout_session_supported: true,
  }),
  oidcOnly: true,
};

async function logout(ctx: Context, server: ServerContext, params: Params): Promise<void> {
  // §2: a logout without id_token_hint or client_id is still a logout (the user is asked first, below).
  if (server.flaws.has('logout-needs-parameters') && params.id_token_hint === undefined && !params.client_id)
    throw invalidRequest('id_token_hint or client_id is required');
  // §2: "the OP MUST validate that it was the issuer of the ID Token": its signature by one of our keys.
  const unverified = server.flaws.has('logout-hint-unverified');
  const hint =
    params.id_token_hint === undefined
      ? undefined
      : await readIdTokenHint(server, params.id_token_hint, { unverified });
  if (params.id_token_hint !== undefined && !hint)
    throw invalidRequest('id_token_hint is not an ID token issued by this server');
  const client = await logoutClient(server, params.client_id, hint?.aud);
  const redirect = params.post_logout_redirect_uri;
  if (redirect !== undefined) checkPostLogoutRedirect(server, client, redirect);

  const session = await currentSession(ctx, server);
  const fromSessionUser = hint !== undefined && session !== undefined && hint.sub === session.sub;
  if (session && !fromSessionUser && params.decision === undefined) {
    const fields: Record<string, string> = {};
    for (const name of ['client_id', 'post_logout_redirect_uri', 'state'] as const) {
      const value = name === 'client_id' ? client?.clientId : params[name];
      if (value !== undefined) fields[name] = value;
    }
    return renderPage(ctx, server.flaws, logoutConfirmPage({ action: server.url(PATH), fields, lang: langOf(server) }));
  }
  if (params.decision === 'deny')
    return renderPage(ctx, server.flaws, loggedOutPage({ signedOut: false, lang: langOf(server) }));
  // §2: once the user agrees (or the hint vouches for the request), the session MUST end.
  if (session && !server.flaws.has('logout-keeps-session')) await endSession(ctx, server, session);
  // The clients are told either way: flaw logout-keeps-session only leaves the session alive.
  const frames = session ? await notifyClients(server, session) : [];
  // The front-channel frames are on the logged-out page only: with a post_logout_redirect_uri the user goes
  // straight back, and only the back channel tells the other clients.
  if (redirect === undefined) {
    const sources = [...new Set(frames.map((frame) => new URL(frame).origin))];
    return renderPage(
      ctx,
      server.flaws,
      loggedOutPage({ signedOut: true, frames, lang: langOf(server) }),
      200,
      sources,
    );
  }
  const url = new URL(redirect);
  if (params.state !== undefined) url.searchParams.set('state', params.state);
  pageHeaders(ctx, server.flaws);
  ctx.status = 303;
  ctx.set('Location', url.href);
}

/** The client: by client_id, else the hint's audience; a client_id that the hint was not issued to is refused. */
async function logoutClient(
  server: ServerContext,
  clientId: string | undefined,
  audience: string[] | undefined,
): Promise<RegisteredClient | undefined> {
  if (clientId !== undefined) {
    const client = await server.findClient(clientId);
    if (!client) throw invalidRequest('unknown client_id');
    if (audience && !audience.includes(clientId))
      throw invalidRequest('client_id is not the audience of id_token_hint');
    return client;
  }
  return audience?.length === 1 ? server.findClient(audience[0]!) : undefined;
}

/**
 * §3: exact match against the client's registered post-logout redirect URIs; never an open redirector, and never
 * without id_token_hint or client_id to say which client's (the reference has no other means of confirming it).
 */
function checkPostLogoutRedirect(server: ServerContext, client: RegisteredClient | undefined, redirect: string): void {
  if (server.flaws.has('logout-open-redirect') && URL.canParse(redirect)) return;
  if (!client && server.flaws.has('logout-redirect-without-hint')) {
    if (server.clients.some((c) => c.postLogoutRedirectUris?.includes(redirect))) return;
  }
  if (!client) throw invalidRequest('post_logout_redirect_uri needs id_token_hint or client_id to identify the client');
  if (!client.postLogoutRedirectUris?.includes(redirect))
    throw invalidRequest('post_logout_redirect_uri is not registered for this client');
}

/** How long a back-channel logout POST may take before the reference gives up on it. */
const BACKCHANNEL_TIMEOUT_MS = 5_000;

/**
 * Tells the session's clients that it ended: a logout token POSTed to each back-channel logout URI (OIDC
 * Back-Channel Logout §2.5), sent in the background and bounded in time, so the logout response never waits for a
 * client; returns the front-channel logout URIs for the logged-out page to load (Front-Channel Logout §4), with
 * iss and sid where the client requires them (§2).
 */
async function notifyClients(server: ServerContext, session: SessionRecord): Promise<string[]> {
  const frames: string[] = [];
  for (const clientId of session.clients ?? []) {
    const client = await server.findClient(clientId);
    if (!client) continue;
    if (client.backchannelLogoutUri !== undefined) {
      const uri = client.backchannelLogoutUri;
      void sendLogoutToken(server, client, uri, session).catch(() => {
        // An unreachable or slow client is its own problem (§2.8): the logout has happened regardless.
      });
    }
    if (client.frontchannelLogoutUri !== undefined) {
      const url = new URL(client.frontchannelLogoutUri);
      if (client.frontchannelLogoutSessionRequired && session.sid !== undefined) {
        url.searchParams.set('iss', server.issuer);
        if (!server.flaws.has('front-channel-no-sid')) url.searchParams.set('sid', session.sid);
      }
      frames.push(url.href);
    }
  }
  return frames;
}

async function sendLogoutToken(
  server: ServerContext,
  client: RegisteredClient,
  uri: string,
  session: SessionRecord,
): Promise<void> {
  const token = await server.tokens.logoutToken({
    client,
    sub: session.sub,
    ...(session.sid === undefined ? {} : { sid: session.sid }),
  });
  const response = await fetch(uri, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ [LOGOUT_TOKEN_PARAM]: token }),
    signal: AbortSignal.timeout(BACKCHANNEL_TIMEOUT_MS),
  });
  await response.body?.cancel();
}
