/**
 * The device activation page at {device_auth_url}/activate (RFC 8628 §3.3): the user enters the
 * code shown on the device (prefilled from verification_uri_complete), signs in with the login
 * page of /auth, and approves or denies the device's request. Like the /auth interaction, the
 * browser carries only an activation id (in the URL) and a cookie binding it to this browser.
 *
 * Routing: the pages are served at the path of device_auth_url when it lies below the issuer's
 * path, else at {issuer}/activate. When device_auth_url has another origin (or path), the
 * operator routes {device_auth_url}/activate to this server.
 */
import type { Context } from 'koa';
import type { ServerContext } from '../context.ts';
import { FailedAttempts } from '../http/attempts.ts';
import { parseBody } from '../http/body.ts';
import { invalidRequest } from '../oauth-error.ts';
import { catchOAuthErrors } from '../http/errors.ts';
import { pageHeaders } from '../http/headers.ts';
import { renderPage } from '../http/pages.ts';
import type { RegisteredClient } from '../options.ts';
import { parseScope } from '../scopes.ts';
import type { ActivationRecord, DeviceRecord } from '../store/store.ts';
import { randomToken } from '../tokens.ts';
import { displayUserCode, normalizeUserCode } from '../user-code.ts';
import { activatePage, activationDonePage } from '../views/activate.ts';
import { consentPage } from '../views/consent.ts';
import { decisionOf, langOf, words } from '../views/locale.ts';
import { checkCsrf, csrfFields } from '../http/csrf.ts';
import { hasInteractionCookie, setInteractionCookie } from './authorization-response.ts';
import type { Endpoint } from './endpoint.ts';
import { identifierOnly, showLogin } from './interaction.ts';
import { authenticateUser } from '../users.ts';

/** RFC 8628 §5.1: wrong user codes allowed per client address and window. */
export const WRONG_CODE_LIMIT = { max: 10, windowMs: 15 * 60_000 };

const WRONG_CODE = 'That code is not valid. Check the code on your device and try again.';
const TOO_MANY = 'Too many wrong codes. Wait a few minutes, then try again.';
const GONE = 'This code has expired or has already been used. Start again on your device.';

/** `{device_auth_url}/activate` followed by `suffix`: the public URL of an activation page. */
export const activationUrl = (server: ServerContext, suffix = '') => `${server.deviceAuthUrl}/activate${suffix}`;

export const activateEndpoint: Endpoint = {
  mount(router, server) {
    const route = activationRoute(server);
    const attempts = new FailedAttempts(WRONG_CODE_LIMIT, () => server.now());
    // Every error shows the code form again, so the user can start over.
    const errors = catchOAuthErrors((ctx, oauth) =>
      showCodeForm(ctx, server, { error: oauth.description }, oauth.status),
    );

    router.get(route, errors, (ctx) => {
      const given = new URLSearchParams(ctx.querystring).getAll('user_code');
      showCodeForm(ctx, server, given.length === 1 ? { userCode: given[0] } : {});
    });

    router.post(route, errors, async (ctx) => {
      const params = await parseBody(ctx, ['form']);
      if (attempts.exhausted(ctx.ip)) return showCodeForm(ctx, server, { error: TOO_MANY }, 429);
      const userCode = normalizeUserCode(params.user_code ?? '');
      const device = userCode === undefined ? undefined : await server.store.findDeviceByUserCode(userCode);
      if (device?.status !== 'pending') {
        attempts.fail(ctx.ip);
        return showCodeForm(ctx, server, { userCode: params.user_code, error: WRONG_CODE }, 400);
      }
      const id = randomToken();
      const expiresAt = Math.min(device.expiresAt, server.now() + server.lifetimes.interaction * 1000);
      await server.store.saveActivation({ id, deviceCode: device.deviceCode, expiresAt });
      const next = activationUrl(server, `/${id}`);
      setInteractionCookie(ctx, server, id, Math.ceil((expiresAt - server.now()) / 1000), next);
      seeOther(ctx, server, next);
    });

    router.get(`${route}/:id`, errors, async (ctx) => {
      const { activation, device, client } = await load(ctx, server);
      if (activation.user) return showDecision(ctx, server, activation, device, client);
      showLogin(ctx, server, activationUrl(server, `/${activation.id}/login`), client);
    });

    router.post(`${route}/:id/login`, errors, async (ctx) => {
      const { activation, client } = await load(ctx, server);
      const params = await parseBody(ctx, ['form']);
      const action = activationUrl(server, `/${activation.id}/login`);
      checkCsrf(ctx, server, params);
      if (identifierOnly(server, params)) return showLogin(ctx, server, action, client, { username: params.username });
      const user = authenticateUser(server, params.username, params.password);
      if (!user) {
        const error = words(langOf(server)).badLogin;
        return showLogin(ctx, server, action, client, { username: params.username, error });
      }
      await server.store.saveActivation({
        ...activation,
        user: { sub: user.sub, authTime: Math.floor(server.now() / 1000) },
      });
      seeOther(ctx, server, activationUrl(server, `/${activation.id}`));
    });

    router.post(`${route}/:id/consent`, errors, async (ctx) => {
      const { activation, device, client } = await load(ctx, server);
      const params = await parseBody(ctx, ['form']);
      checkCsrf(ctx, server, params);
      if (!activation.user) throw invalidRequest('Sign in before approving the device.');
      const decision = decisionOf(params, langOf(server));
      if (!decision) throw invalidRequest('decision must be approve or deny');
      const approved = decision === 'approve';
      // Atomic: one decision per device request, even if two browsers race.
      const decided = await server.store.transitionDevice(
        device.deviceCode,
        'pending',
        approved ? 'approved' : 'denied',
        activation.user,
      );
      if (!decided) throw invalidRequest(GONE);
      setInteractionCookie(ctx, server, activation.id, 0, activationUrl(server, `/${activation.id}`));
      renderPage(ctx, server.flaws, activationDonePage({ approved, clientName: client.name, lang: langOf(server) }));
    });
  },
};

/** The router path (below the issuer's path) of the activation page; see the module comment. */
function activationRoute(server: ServerContext): string {
  if (server.options.deviceAuthUrl === undefined) return '/activate';
  const pathOf = (url: string) => new URL(url).pathname.replace(/\/$/, '');
  const issuerPath = server.options.issuer === undefined ? '' : pathOf(server.options.issuer);
  const devicePath = pathOf(server.deviceAuthUrl);
  const below = devicePath === issuerPath || devicePath.startsWith(`${issuerPath}/`);
  return `${below ? devicePath.slice(issuerPath.length) : ''}/activate`;
}

async function load(
  ctx: Context,
  server: ServerContext,
): Promise<{ activation: ActivationRecord; device: DeviceRecord; client: RegisteredClient }> {
  const id = String(ctx.params.id ?? '');
  const activation = await server.store.findActivation(id);
  if (!activation) throw invalidRequest('This activation is unknown or has expired. Enter the code again.');
  const device = await server.store.findDevice(activation.deviceCode);
  const client = device && (await server.findClient(device.clientId));
  if (device?.status !== 'pending' || !client) throw invalidRequest(GONE);
  if (!hasInteractionCookie(ctx, id))
    throw invalidRequest('This activation was started in another browser. Enter the code again.');
  return { activation, device, client };
}

function showCodeForm(
  ctx: Context,
  server: ServerContext,
  view: { userCode?: string | undefined; error?: string },
  status = 200,
): void {
  const page = activatePage({
    action: activationUrl(server),
    lang: langOf(server),
    ...(view.userCode === undefined ? {} : { userCode: view.userCode }),
    ...(view.error === undefined ? {} : { error: view.error }),
  });
  renderPage(ctx, server.flaws, page, status);
}

/** The approve/deny page: the client, the scopes, and the code to compare with the device's (RFC 8628 §5.4). */
function showDecision(
  ctx: Context,
  server: ServerContext,
  activation: ActivationRecord,
  device: DeviceRecord,
  client: RegisteredClient,
): void {
  const view = {
    action: activationUrl(server, `/${activation.id}/consent`),
    clientName: client.name,
    clientId: client.clientId,
    scopes: parseScope(device.scope),
    userCode: displayUserCode(device.userCode),
    lang: langOf(server),
    hidden: csrfFields(ctx, server),
  };
  renderPage(ctx, server.flaws, consentPage(view));
}

function seeOther(ctx: Context, server: ServerContext, location: string): void {
  pageHeaders(ctx, server.flaws);
  ctx.status = 303;
  ctx.set('Location', location);
}
