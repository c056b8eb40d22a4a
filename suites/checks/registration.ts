/**
 * Dynamic client registration (RFC 7591) for the registration scenarios: the clients they register,
 * through the harness's protocol client (harness/registration/client.ts), and their clean-up.
 */
import {
  type Registration,
  type RegistrationOutcome,
  register,
  remove,
  unmanageable,
} from '../../harness/registration/client.ts';
import {
  type Client,
  JudgementError,
  PreconditionError,
  type ScenarioContext,
} from '../../harness/scenario/scenario.ts';
import { errorMessage } from '../../protocol/guards.ts';

/** A loopback redirect URI that nothing listens on: the walk stops at it and never fetches it. */
export const REGISTERED_REDIRECT_URI = 'http://127.0.0.1:9/idp-conformance/registered-callback';

/** The metadata of a confidential client of the code flow (client_secret_basic), with `over` on top. */
export function codeClientMetadata(ctx: ScenarioContext, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    redirect_uris: [REGISTERED_REDIRECT_URI],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    client_name: `idp-conformance ${ctx.id}`,
    ...(registeredScope(ctx) ? { scope: registeredScope(ctx) } : {}),
    ...over,
  };
}

/**
 * The scope a registered code-flow client asks for: openid on a target that offers it; else (an OAuth 2.0
 * authorization server) the first scope its metadata lists, since RFC 6749 §3.3 lets a server refuse a request
 * without a scope (invalid_scope) when it has no default; none when it lists none.
 */
function registeredScope(ctx: ScenarioContext): string | undefined {
  if (ctx.target.kind.protocol === 'oidc' && scopeOffered(ctx, 'openid')) return 'openid';
  const scopes = ctx.target.discovery?.scopes_supported;
  if (!Array.isArray(scopes)) return scopeOffered(ctx, 'openid') ? 'openid' : undefined;
  return scopes.find((s): s is string => typeof s === 'string' && s !== 'openid' && s !== 'offline_access');
}

function scopeOffered(ctx: ScenarioContext, scope: string): boolean {
  const scopes = ctx.target.discovery?.scopes_supported;
  return !Array.isArray(scopes) || scopes.includes(scope);
}

/**
 * A registration request, its outcome as data, with the config's initial access token when it has one (RFC 7591 §3).
 * A 401 or 403 without one is the endpoint asking for it: skipped, with the reason and the field that gives it; with
 * one, the outcome as it came (the scenario judges it, or calls it a set-up error).
 */
export async function tryRegister(
  ctx: ScenarioContext,
  metadata: Record<string, unknown>,
  label: string,
): Promise<RegistrationOutcome<Registration>> {
  const endpoint =
    ctx.target.endpoints.registration ?? ctx.skip('the target advertises no registration_endpoint (OIDC Discovery §3)');
  const token = ctx.initialAccessToken;
  const outcome = await register(ctx.http, endpoint, metadata, {
    label,
    ...(token ? { initialAccessToken: token } : {}),
  });
  if (!token && !outcome.ok && (outcome.status === 401 || outcome.status === 403)) {
    ctx.skip(
      `the registration endpoint answered HTTP ${outcome.status}: it needs an initial access token ` +
        '(RFC 7591 §3); give it as registration.initialAccessToken in the target config',
    );
  }
  return outcome;
}

/** A registration that must work for the scenario to judge anything: a refusal is an error, not a verdict. */
export async function registerOrFail(
  ctx: ScenarioContext,
  metadata: Record<string, unknown>,
  label: string,
): Promise<Registration> {
  const outcome = await tryRegister(ctx, metadata, label);
  if (!outcome.ok) throw new PreconditionError(`registering a client failed: ${outcome.problem}`);
  return outcome.value;
}

/**
 * A refusal shows what the scenario claims only if the same request without the fault registers:
 * `sound` is registered (and deleted again); when it is refused too, the refusal had another cause
 * and the scenario cannot judge (a JudgementError: "could not judge: …").
 */
export async function expectRegistrationRefusalIsFor(
  ctx: ScenarioContext,
  sound: Record<string, unknown>,
  refusal: string,
  cause: string,
): Promise<void> {
  const control = await tryRegister(ctx, sound, 'control: the same registration without the fault');
  if (!control.ok) {
    throw new JudgementError(
      `the registration ${refusal}, but the same request without ${cause} was refused too (${control.problem}), ` +
        `so the refusal cannot be put down to ${cause}`,
    );
  }
  await deleteRegistered(ctx, control.value);
  ctx.evidence.note(
    `The registration ${refusal}; the same request without ${cause} registered, so it was for ${cause}.`,
  );
}

/** Deletes a client the scenario registered (RFC 7592 §2.3), best effort: a failure is noted, never thrown. */
export async function deleteRegistered(ctx: ScenarioContext, registration: Registration): Promise<void> {
  if (unmanageable(registration)) {
    ctx.evidence.note(`client ${registration.clientId} cannot be deleted: ${unmanageable(registration)}`);
    return;
  }
  try {
    const outcome = await remove(ctx.http, registration, { label: 'clean-up: delete the registered client' });
    if (!outcome.ok) ctx.evidence.note(`client ${registration.clientId} was left registered: ${outcome.problem}`);
  } catch (error) {
    ctx.evidence.note(`client ${registration.clientId} was left registered: ${errorMessage(error)}`);
  }
}

/** Runs `body` with a registration, and deletes the client afterwards whatever happens. */
export async function withRegistration<T>(
  ctx: ScenarioContext,
  registration: Registration,
  body: (registration: Registration) => Promise<T>,
): Promise<T> {
  try {
    return await body(registration);
  } finally {
    await deleteRegistered(ctx, registration);
  }
}

/**
 * The registered client as a harness Client, for ctx.http.token: its credentials and the method it
 * registered. `role` only names it in messages.
 */
export function registeredClient(registration: Registration, role: Client['role'] = 'confidential'): Client {
  const method = registration.metadata.token_endpoint_auth_method;
  const redirect = registration.metadata.redirect_uris;
  return {
    role,
    clientId: registration.clientId,
    ...(registration.clientSecret ? { clientSecret: registration.clientSecret } : {}),
    ...(Array.isArray(redirect) && typeof redirect[0] === 'string' ? { redirectUri: redirect[0] } : {}),
    scope: typeof registration.metadata.scope === 'string' ? registration.metadata.scope : '',
    authMethod:
      method === 'client_secret_post' || method === 'none'
        ? method
        : registration.clientSecret
          ? 'client_secret_basic'
          : 'none',
  };
}
