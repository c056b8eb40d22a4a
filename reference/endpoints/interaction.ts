/**
 * The login and consent steps of an authorization request started at GET /auth. The request
 * itself stays server-side; the browser carries only the interaction id (in the URL) and a
 * cookie binding it to this browser. Each POST answers 303 to the next step.
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { implicitResponse } from './implicit.ts';
import { type Params, parseBody } from '../http/body.ts';
import { invalidRequest, OAuthError } from '../oauth-error.ts';
import { pageErrors, renderPage } from '../http/pages.ts';
import type { RegisteredClient } from '../options.ts';
import { parseScope } from '../scopes.ts';
import type { InteractionRecord } from '../store/store.ts';
import { authenticateUser } from '../users.ts';
import { consentPage } from '../views/consent.ts';
import { consentRemembered, keepConsent, rememberClient, rememberConsent, startSession } from './login-session.ts';
import { LOGIN_SCRIPT, type LoginView, loginPage } from '../views/login.ts';
import { scriptSource } from '../views/html.ts';
import { decisionOf, langOf, words } from '../views/locale.ts';
import { checkCsrf, csrfFields } from '../http/csrf.ts';
import {
  hasInteractionCookie,
  interactionPath,
  issueCode,
  redirectToClient,
  setInteractionCookie,
  targetOf,
} from './authorization-response.ts';
import type { Endpoint } from './endpoint.ts';

export type LoggedIn = InteractionRecord & { sub: string; authTime: number };

export const interactionEndpoint: Endpoint = {
  mount(router, server) {
    const errors = pageErrors(server);
    router.get('/interaction/:id', errors, async (ctx) => {
      const { interaction, client } = await load(ctx, server);
      if (isLoggedIn(interaction) && needsConsent(server, client)) return showConsent(ctx, server, interaction, client);
      showLogin(ctx, server, loginAction(server, interaction), client);
    });

    router.post('/interaction/:id/login', errors, async (ctx) => {
      const { interaction, client } = await load(ctx, server);
      const params = await parseBody(ctx, ['form']);
      const action = loginAction(server, interaction);
      checkCsrf(ctx, server, params);
      if (identifierOnly(server, params)) return showLogin(ctx, server, action, client, { username: params.username });
      const user = authenticateUser(server, params.username, params.password);
      if (!user) {
        return showLogin(ctx, server, action, client, {
          username: params.username,
          error: words(langOf(server)).badLogin,
        });
      }
      const authTime = Math.floor(server.now() / 1000);
      const session = await startSession(ctx, server, user.sub, authTime);
      const loggedIn: LoggedIn = { ...interaction, sub: user.sub, authTime, sessionId: session.id };
      const remembered =
        !interaction.promptConsent && consentRemembered(server, user.sub, client.clientId, interaction.scope);
      if (!needsConsent(server, client) || remembered) return complete(ctx, server, client, loggedIn, 'approve');
      await server.store.saveInteraction(loggedIn);
      ctx.status = 303;
      ctx.set('Location', server.url(interactionPath(interaction.id)));
    });

    router.post('/interaction/:id/consent', errors, async (ctx) => {
      const { interaction, client } = await load(ctx, server);
      const params = await parseBody(ctx, ['form']);
      checkCsrf(ctx, server, params);
      if (!isLoggedIn(interaction)) throw invalidRequest('sign in before giving consent');
      const decision = decisionOf(params, langOf(server));
      if (!decision) throw invalidRequest('decision must be approve or deny');
      await complete(ctx, server, client, interaction, decision);
    });
  },
};

/**
 * Variant two-step-login: a POST with the user name and no password answers with the password page (identifier
 * first); the user name is checked only with the password, so the first step tells nobody whether the user exists.
 */
export function identifierOnly(server: ServerContext, params: Params): boolean {
  return server.variants.has('two-step-login') && params.password === undefined;
}

const loginAction = (server: ServerContext, interaction: InteractionRecord) =>
  server.url(`${interactionPath(interaction.id)}/login`);

function isLoggedIn(interaction: InteractionRecord): interaction is LoggedIn {
  return interaction.sub !== undefined && interaction.authTime !== undefined;
}

/**
 * SPEC first/third-party table: consent is required for third-party clients, optional (skipped) for first-party ones.
 */
export function needsConsent(server: ServerContext, client: RegisteredClient): boolean {
  return !client.firstParty && !server.flaws.has('consent-skipped');
}

async function load(
  ctx: Context,
  server: ServerContext,
): Promise<{ interaction: InteractionRecord; client: RegisteredClient }> {
  const id = String(ctx.params.id ?? '');
  const interaction = await server.store.findInteraction(id);
  if (!interaction)
    throw invalidRequest('this sign-in request is unknown or has expired; start again from the application');
  if (!hasInteractionCookie(ctx, id)) throw invalidRequest('this sign-in request was started in another browser');
  const client = await server.findClient(interaction.clientId);
  if (!client) throw invalidRequest('unknown client');
  return { interaction, client };
}

/** The login page posting to `action` (also the device activation's login step). */
export function showLogin(
  ctx: Context,
  server: ServerContext,
  action: string,
  client: RegisteredClient,
  extra: { username?: string | undefined; error?: string } = {},
): void {
  const known = extra.username !== undefined && extra.username !== '';
  const scripted = server.variants.has('spa-login');
  const view: LoginView = {
    action,
    clientName: client.name,
    lang: langOf(server),
    step: server.variants.has('two-step-login') ? (known ? 'password' : 'identifier') : 'both',
    hidden: csrfFields(ctx, server),
    scripted,
    ...(extra.username === undefined ? {} : { username: extra.username }),
    ...(extra.error === undefined ? {} : { error: extra.error }),
  };
  renderPage(ctx, server.flaws, loginPage(view));
  // spa-login: the page's one script is allowed by its hash; nothing else runs.
  if (scripted) {
    const csp = ctx.response.get('Content-Security-Policy');
    ctx.set('Content-Security-Policy', `${csp}; script-src ${scriptSource(LOGIN_SCRIPT)}`);
  }
}

function showConsent(
  ctx: Context,
  server: ServerContext,
  interaction: InteractionRecord,
  client: RegisteredClient,
): void {
  const view = {
    action: server.url(`${interactionPath(interaction.id)}/consent`),
    clientName: client.name,
    clientId: client.clientId,
    scopes: parseScope(interaction.scope),
    lang: langOf(server),
    hidden: csrfFields(ctx, server),
  };
  renderPage(ctx, server.flaws, consentPage(view));
}

/**
 * Ends the interaction exactly once: on approval a code, or the tokens of an implicit request;
 * access_denied on denial (RFC 6749 §4.1.2.1, §4.2.2.1).
 */
async function complete(
  ctx: Context,
  server: ServerContext,
  client: RegisteredClient,
  interaction: LoggedIn,
  decision: 'approve' | 'deny',
): Promise<void> {
  if (!(await server.store.consumeInteraction(interaction.id))) {
    throw invalidRequest('this sign-in request has already been completed');
  }
  setInteractionCookie(ctx, server, interaction.id, 0);
  if (decision === 'deny') {
    const denied = new OAuthError(
      server.flaws.has('denial-wrong-error') ? 'invalid_request' : 'access_denied',
      'the user denied the request',
    );
    return await redirectToClient(ctx, server, targetOf(interaction), denied.toJSON());
  }
  if (needsConsent(server, client)) {
    await rememberConsent(ctx, server, interaction.sub, client.clientId, interaction.scope);
    keepConsent(server, interaction.sub, client.clientId, interaction.scope);
  }
  await answerClient(ctx, server, client, interaction);
}

/** The approved answer to the client: a code, the tokens of an implicit request, or both (hybrid). */
export async function answerClient(
  ctx: Context,
  server: ServerContext,
  client: RegisteredClient,
  interaction: LoggedIn,
): Promise<void> {
  const target = targetOf(interaction);
  const sid = await rememberClient(server, interaction.sessionId, client.clientId);
  const response =
    (interaction.responseType ?? 'code') === 'code'
      ? { code: await issueCode(server, { ...interaction, ...(sid === undefined ? {} : { sid }) }) }
      : await implicitResponse(server, client, interaction);
  await redirectToClient(ctx, server, target, response);
}
