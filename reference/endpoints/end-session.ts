/**
 * GET and POST /session/end: RP-Initiated Logout 1.0. The RP sends the user here with
 * id_token_hint, client_id, post_logout_redirect_uri and state. The user is asked unless the hint
 * shows the request comes for the session's own user (§2: the OP SHOULD ask); the session then
 * ends, and the user goes back to post_logout_redirect_uri only when it is registered for the
 * client exactly (§3), with state (§2). Anything unverifiable gets a page, never a redirect.
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { parseBody, parseQuery, type Params } from '../http/body.ts';
import { invalidRequest } from '../http/errors.ts';
import { pageHeaders } from '../http/headers.ts';
import { pageErrors, renderPage } from '../http/pages.ts';
import { readIdTokenHint } from '../id-token-hint.ts';
import type { RegisteredClient } from '../options.ts';
import { loggedOutPage, logoutConfirmPage } from '../views/logout.ts';
import type { Endpoint } from './endpoint.ts';
import { currentSession, endSession } from './login-session.ts';

const PATH = '/session/end';

export const endSessionEndpoint: Endpoint = {
  mount(router, server) {
    const errors = pageErrors(server.flaws);
    router.get(PATH, errors, (ctx) => logout(ctx, server, parseQuery(ctx.querystring)));
    router.post(PATH, errors, async (ctx) => logout(ctx, server, await parseBody(ctx, ['form'])));
  },
  metadata: (server) => ({ end_session_endpoint: server.url(PATH) }),
  oidcOnly: true,
};

async function logout(ctx: Context, server: ServerContext, params: Params): Promise<void> {
  const hint = params.id_token_hint === undefined ? undefined : await readIdTokenHint(server, params.id_token_hint);
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
    return renderPage(ctx, server.flaws, logoutConfirmPage({ action: server.url(PATH), fields }));
  }
  if (params.decision === 'deny') return renderPage(ctx, server.flaws, loggedOutPage({ signedOut: false }));
  // §2: once the user agrees (or the hint vouches for the request), the session MUST end.
  if (session && !server.flaws.has('logout-keeps-session')) await endSession(ctx, server, session);
  if (redirect === undefined) return renderPage(ctx, server.flaws, loggedOutPage({ signedOut: true }));
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

/** §3: exact match against the client's registered post-logout redirect URIs; never an open redirector. */
function checkPostLogoutRedirect(server: ServerContext, client: RegisteredClient | undefined, redirect: string): void {
  if (server.flaws.has('logout-open-redirect') && URL.canParse(redirect)) return;
  if (!client) throw invalidRequest('post_logout_redirect_uri needs id_token_hint or client_id to identify the client');
  if (!client.postLogoutRedirectUris?.includes(redirect))
    throw invalidRequest('post_logout_redirect_uri is not registered for this client');
}
