/**
 * The device authorization grant from the device's side (RFC 8628): the device authorization
 * request (§3.1), the user's activation through the login driver (§3.3), and polling the token
 * endpoint (§3.4–3.5) as a well-behaved device does — never sooner than the interval after the
 * previous answer, and 5 s more after each slow_down — so a server is never blamed for how it
 * answers a device that polled too fast. Every wait ends when the scenario's signal aborts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '../config/load.ts';
import { PreconditionError } from '../model/failures.ts';
import type { HttpClient, HttpResponse } from '../http/client.ts';
import type { DeviceActivationOutcome, LoginDriver } from '../login/driver.ts';
import type { ClientRole } from '../model/requirements.ts';
import { GRANT, type Target } from '../target/target.ts';
import { type TokenSet, tokenSetOf } from './token-set.ts';

/** RFC 8628 §3.2: without an interval in the response, clients MUST wait 5 seconds. */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;
/** RFC 8628 §3.5: slow_down raises the interval by 5 seconds for this and all later polls. */
export const SLOW_DOWN_SECONDS = 5;

/** The device authorization response (RFC 8628 §3.2), as far as the flow relies on it. */
export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in?: number;
  interval?: number;
  [field: string]: unknown;
}

export interface PollOptions {
  /** Poll now, without waiting for the interval (only to see whether the server says slow_down). */
  early?: boolean;
  label?: string;
}

export interface DevicePollerOptions {
  http: HttpClient;
  client: Client;
  deviceCode: string;
  /** The server's interval in seconds; absent: the RFC's default of 5. */
  interval?: number;
  signal?: AbortSignal;
}

/** Polls the token endpoint for one device code, keeping the interval (RFC 8628 §3.4–3.5). */
export class DevicePoller {
  readonly #o: DevicePollerOptions;
  #intervalMs: number;
  #lastAnswerAt: number | undefined;
  #polls = 0;

  constructor(options: DevicePollerOptions) {
    this.#o = options;
    const interval = options.interval;
    this.#intervalMs = (typeof interval === 'number' && interval > 0 ? interval : DEFAULT_POLL_INTERVAL_SECONDS) * 1000;
  }

  /** The interval now, in seconds (the server's, plus 5 per slow_down). */
  get interval(): number {
    return this.#intervalMs / 1000;
  }

  /** Milliseconds since the previous poll was answered; undefined before the first poll. */
  sinceLastAnswer(): number | undefined {
    return this.#lastAnswerAt === undefined ? undefined : performance.now() - this.#lastAnswerAt;
  }

  /**
   * One poll. Unless `early`, it first waits until the interval has passed since the previous
   * answer (measured from the answer, so network delay never makes a poll arrive early).
   */
  async poll(options: PollOptions = {}): Promise<HttpResponse> {
    const since = this.sinceLastAnswer();
    if (!options.early && since !== undefined && since < this.#intervalMs) {
      await sleep(this.#intervalMs - since, undefined, this.#o.signal ? { signal: this.#o.signal } : {});
    }
    const res = await this.#o.http.token(
      this.#o.client,
      { grant_type: GRANT.device, device_code: this.#o.deviceCode },
      {
        label: options.label ?? `device code poll ${++this.#polls}`,
      },
    );
    this.#lastAnswerAt = performance.now();
    if (res.body.error === 'slow_down') this.#intervalMs += SLOW_DOWN_SECONDS * 1000;
    return res;
  }

  /**
   * Polls, and while the answer is slow_down (a variant of authorization_pending, RFC 8628 §3.5)
   * polls again after the longer interval: the first answer that is not slow_down.
   */
  async pollPastSlowDown(options: Omit<PollOptions, 'early'> = {}, maxSlowDowns = 3): Promise<HttpResponse> {
    let res = await this.poll(options);
    for (let i = 0; i < maxSlowDowns && res.body.error === 'slow_down'; i++) res = await this.poll(options);
    return res;
  }
}

export interface DeviceFlow {
  /** The device authorization response; device_code, user_code and verification_uri are there. */
  authorization: DeviceAuthorization;
  response: HttpResponse;
  poller: DevicePoller;
  /**
   * The user enters the user code at verification_uri, logs in, and approves or denies, through
   * the login driver. A driver that could not give the decision is a PreconditionError.
   */
  activate(decision: 'approve' | 'deny', options?: ActivateOptions): Promise<DeviceActivationOutcome>;
  /** Set-up: the user approves, and the next poll's tokens (a PreconditionError when none come). */
  tokens(): Promise<TokenSet>;
}

/**
 * The activation ended without the user's decision being given (a PreconditionError): `outcome` is where it stopped,
 * for a scenario whose premise is a decision the IdP may not offer (device.denied: a deny control).
 */
export class DecisionNotGiven extends PreconditionError {
  override readonly name = 'DecisionNotGiven';
  constructor(
    readonly outcome: DeviceActivationOutcome,
    message: string,
  ) {
    super(message);
  }
}

export interface ActivateOptions {
  /**
   * Open verification_uri_complete when the server gave one (default true); false types the code at verification_uri.
   */
  useComplete?: boolean;
}

export interface DeviceFlowOptions {
  /** Default: the client's configured scope. */
  scope?: string;
}

/** What the device flow uses of the scenario's context (ScenarioContext has all of it). */
export interface DeviceFlowContext {
  client(role: ClientRole): Client;
  readonly target: Target;
  readonly http: HttpClient;
  readonly login: LoginDriver;
  readonly signal: AbortSignal;
}

/** POST to the device authorization endpoint as `role` (RFC 8628 §3.1; a form body, as the RFC specifies). */
export function requestDeviceAuthorization(
  ctx: DeviceFlowContext,
  role: ClientRole,
  options: DeviceFlowOptions = {},
): Promise<HttpResponse> {
  const client = ctx.client(role);
  const endpoint = ctx.target.endpoints.deviceAuthorization;
  if (!endpoint) throw new PreconditionError('the discovery document has no device_authorization_endpoint');
  return ctx.http.token(
    client,
    { scope: options.scope ?? (client.scope || undefined) },
    {
      url: endpoint,
      encoding: 'form',
      label: 'device authorization request',
    },
  );
}

/** A device flow as far as the device authorization response: set-up for the device scenarios. */
export async function startDeviceFlow(
  ctx: DeviceFlowContext,
  role: ClientRole,
  options: DeviceFlowOptions = {},
): Promise<DeviceFlow> {
  const res = await requestDeviceAuthorization(ctx, role, options);
  const body = res.body;
  const missing = ['device_code', 'user_code', 'verification_uri'].filter(
    (f) => typeof body[f] !== 'string' || !body[f],
  );
  if (res.status !== 200 || missing.length) {
    const error = typeof body.error === 'string' ? ` error=${body.error}` : '';
    const lacking = res.status === 200 ? ` without ${missing.join(', ')}` : error;
    throw new PreconditionError(
      `the device authorization request as ${role} got HTTP ${res.status}${lacking}; a device code was needed to go on`,
    );
  }
  const { device_code: deviceCode, user_code: userCode, verification_uri: verificationUri } = body;
  // Strings, as checked above: what the type says, stated without a cast.
  if (typeof deviceCode !== 'string' || typeof userCode !== 'string' || typeof verificationUri !== 'string')
    throw new PreconditionError(`the device authorization response as ${role} lacks its codes`);
  const authorization: DeviceAuthorization = {
    ...body,
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
  };
  const poller = new DevicePoller({
    http: ctx.http,
    client: ctx.client(role),
    deviceCode: authorization.device_code,
    signal: ctx.signal,
    ...(typeof authorization.interval === 'number' ? { interval: authorization.interval } : {}),
  });
  const activate = async (
    decision: 'approve' | 'deny',
    options: ActivateOptions = {},
  ): Promise<DeviceActivationOutcome> => {
    const outcome = await ctx.login.activateDevice({
      ...(options.useComplete !== undefined ? { useComplete: options.useComplete } : {}),
      verificationUri: authorization.verification_uri,
      ...(typeof authorization.verification_uri_complete === 'string'
        ? { verificationUriComplete: authorization.verification_uri_complete }
        : {}),
      userCode: authorization.user_code,
      decision,
    });
    if (!outcome.decided) {
      const headline = outcome.headline ? ` "${outcome.headline}"` : '';
      throw new DecisionNotGiven(
        outcome,
        `activating the device (${decision}) through the ${ctx.login.name} login driver stopped at ${outcome.url} ` +
          `(HTTP ${outcome.status}${headline}): ${outcome.reason}`,
      );
    }
    return outcome;
  };
  return {
    authorization,
    response: res,
    poller,
    activate,
    async tokens() {
      await activate('approve');
      const answer = await poller.pollPastSlowDown({ label: 'device code poll after approval' });
      return tokenSetOf(answer, `polling after the user approved the device as ${role}`);
    },
  };
}
