/**
 * The form login driver (docs/login.md): HTTP only, no browser, no scripts. Its walks are the one page walk (walk.ts)
 * over the HTTP actuator (http-actuator.ts): redirects followed with a cookie jar, each page read by parse5 into the
 * page model, the login (or identifier-first) form filled in, consent answered by the approving (or denying) control,
 * the walk stopped at the redirect to the redirect_uri without fetching it — or at a page it cannot act on. For a
 * device (RFC 8628 §3.3) it enters the user code at the verification URI first (or opens verification_uri_complete).
 *
 * It never presses what it cannot press as the page means it: a control that needs a script, or a deny button whose
 * submission would be the same as approving, ends the walk as an `error` that names the auto and browser drivers.
 */
import type { HttpClient } from '../http/client.ts';
import type { LoginWalk } from '../scenario/results.ts';
import type {
  AuthorizeOptions,
  AuthorizeOutcome,
  DeviceActivation,
  DeviceActivationOutcome,
  LoginDriver,
  PageKind,
} from './driver.ts';
import { HttpActuator, MAX_REQUESTS } from './http-actuator.ts';
import { type LoginSession, type SessionChoice, sessionFor, walkOn } from './session.ts';
import { PageWalk, type WalkSettings } from './walk.ts';
import { WalkPosition, walkFailure } from './walk-errors.ts';
import { WalkRecord } from './walk-record.ts';

export interface FormLoginOptions {
  http: HttpClient;
  username: string;
  password: string;
  usernameField?: string;
  passwordField?: string;
  /** The run's shared IdP session (AuthorizeOptions.session "shared"). */
  sharedSession?: LoginSession;
  /** Told of every walk when it ends (report.json's `walks`). */
  onWalk?: (walk: LoginWalk) => void;
}

/** What an HTTP walk is: the request it opens, where it stops, what it reports. */
export interface HttpWalkSetup {
  kind: LoginWalk['kind'];
  driver: 'form' | 'auto';
  /** The label of its first request. */
  first: string;
  opener?: string;
  stopAt: readonly string[];
  stayWithin?: string;
  giveUp: string;
}

/** What a walk over HTTP may add: the browser to go on in (the auto driver), and what to do when the walk ends. */
export interface HttpWalkExtras {
  settings: Partial<Pick<WalkSettings, 'steps' | 'handOver' | 'memory'>>;
  /** The walk ended: before its session takes over the walk's copy. */
  ended?(): Promise<void>;
  /** What a walk threw, as the error it becomes. */
  failed?(error: unknown, position: WalkPosition): Promise<Error>;
}

/** The walk of an authorization request. */
export function authorizationWalk(
  driver: HttpWalkSetup['driver'],
  stopAt: readonly string[],
  options: AuthorizeOptions,
): HttpWalkSetup {
  return {
    kind: 'authorization',
    driver,
    first: 'authorization request',
    stopAt,
    ...(stopAt[0] ? { opener: stopAt[0] } : {}),
    ...(options.stayWithin ? { stayWithin: options.stayWithin } : {}),
    giveUp: `no redirect to the redirect_uri within ${MAX_REQUESTS} steps (a redirect loop?)`,
  };
}

/** The walk of a device activation. */
export function activationWalk(driver: HttpWalkSetup['driver']): HttpWalkSetup {
  return {
    kind: 'device activation',
    driver,
    first: 'device activation page',
    stopAt: [],
    giveUp: `the activation did not end within ${MAX_REQUESTS} steps (a redirect loop?)`,
  };
}

/**
 * A walk over HTTP on its own copy of the session it starts from (one walk at a time on a session); the session takes
 * over the copy's cookies when the walk ends.
 */
export function walkOverHttp<T extends { pages: PageKind[] }>(
  o: FormLoginOptions,
  choice: SessionChoice | undefined,
  setup: HttpWalkSetup,
  run: (walk: PageWalk) => Promise<T>,
  extrasFor: (own: LoginSession) => HttpWalkExtras = () => ({ settings: {} }),
): Promise<T> {
  const session = sessionFor(choice, o.sharedSession);
  return walkOn(session, async () => {
    const own = session.fork();
    const extras = extrasFor(own);
    const position = new WalkPosition();
    const record = new WalkRecord(setup.kind, setup.driver, 'http');
    const actuator = new HttpActuator({
      http: o.http,
      session: own,
      first: setup.first,
      ...(setup.opener ? { opener: setup.opener } : {}),
      stopAt: setup.stopAt,
      ...(setup.stayWithin ? { stayWithin: setup.stayWithin } : {}),
      ...(o.usernameField ? { usernameField: o.usernameField } : {}),
      ...(o.passwordField ? { passwordField: o.passwordField } : {}),
      position,
      giveUp: setup.giveUp,
    });
    const walk = new PageWalk(actuator, {
      username: o.username,
      password: o.password,
      position,
      record,
      ...extras.settings,
    });
    try {
      return await run(walk);
    } catch (error) {
      throw extras.failed ? await extras.failed(error, position) : walkFailure(setup.driver, position, error);
    } finally {
      try {
        await extras.ended?.();
      } finally {
        session.adopt(own);
        o.onWalk?.(record.value);
      }
    }
  });
}

export class FormLoginDriver implements LoginDriver {
  readonly name = 'form';
  constructor(private readonly o: FormLoginOptions) {}

  authorize(authorizationUrl: string, stopAt: string[], options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> {
    return walkOverHttp(this.o, options.session, authorizationWalk('form', stopAt, options), (walk) =>
      walk.authorize(authorizationUrl, options),
    );
  }

  /**
   * Opens verification_uri (or verification_uri_complete, when given and not declined), types the user code into the
   * form that asks for it, logs in when the login form appears, and submits the decision (approve, or
   * deny/cancel/abort) wherever it is asked. Ends at the first page with nothing left to do.
   */
  activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    return walkOverHttp(this.o, activation.session, activationWalk('form'), (walk) => walk.activate(activation));
  }
}
