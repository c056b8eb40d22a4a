/**
 * The HTTP half of the login drivers (docs/login.md): a walk over HTTP is the one page walk (walk.ts) over the HTTP
 * actuator (http-actuator.ts), on its own copy of the session it starts from. The form driver (form.ts) is this alone;
 * the auto driver (auto.ts) adds the browser to go on in (HttpWalkExtras). Both read it from here, so neither borrows
 * the other's.
 */
import type { LoginWalk } from '../model/results.ts';
import type {
  AuthorizeOptions,
  AuthorizeOutcome,
  DeviceActivation,
  DeviceActivationOutcome,
  LoginDriver,
  PageKind,
} from './driver.ts';
import type { HttpClient } from '../http/client.ts';
import { HttpActuator, MAX_REQUESTS } from './http-actuator.ts';
import { type LoginSession, type SessionChoice, sessionFor } from './session.ts';
import { PageWalk } from './walk.ts';
import type { WalkSettings } from './walk-settings.ts';
import { WalkPosition, walkFailure } from './walk-errors.ts';
import { WalkRecord } from './walk-record.ts';

export interface HttpLoginOptions {
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
function authorizationWalk(
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
function activationWalk(driver: HttpWalkSetup['driver']): HttpWalkSetup {
  return {
    kind: 'device activation',
    driver,
    first: 'device activation page',
    stopAt: [],
    giveUp: `the activation did not end within ${MAX_REQUESTS} steps (a redirect loop?)`,
  };
}

/** A login driver that walks over HTTP: the form driver, and the auto driver until a page needs the browser. */
export abstract class HttpLoginDriver implements LoginDriver {
  abstract readonly name: 'form' | 'auto';

  constructor(protected readonly o: HttpLoginOptions) {}

  /** What a walk adds to the HTTP walk (none here; the auto driver: the browser). `own`: the walk's session copy. */
  protected extras(_setup: HttpWalkSetup, _own: LoginSession): HttpWalkExtras {
    return { settings: {} };
  }

  authorize(authorizationUrl: string, stopAt: string[], options: AuthorizeOptions = {}): Promise<AuthorizeOutcome> {
    return this.#walk(options.session, authorizationWalk(this.name, stopAt, options), (walk) =>
      walk.authorize(authorizationUrl, options),
    );
  }

  /**
   * Opens verification_uri (or verification_uri_complete, when given and not declined), types the user code into the
   * form that asks for it, logs in when the login form appears, and submits the decision (approve, or
   * deny/cancel/abort) wherever it is asked. Ends at the first page with nothing left to do.
   */
  activateDevice(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    return this.#walk(activation.session, activationWalk(this.name), (walk) => walk.activate(activation));
  }

  /**
   * A walk over HTTP on its own copy of the session it starts from, when it is its turn on that session (one walk at a
   * time); the session takes over the copy's cookies when the walk ends, and learns whether the IdP remembers a
   * sign-in (session.ts).
   */
  async #walk<T extends { pages: PageKind[] }>(
    choice: SessionChoice | undefined,
    setup: HttpWalkSetup,
    run: (walk: PageWalk) => Promise<T>,
  ): Promise<T> {
    const session = sessionFor(choice, this.o.sharedSession);
    const turn = session.enter();
    if (turn) await turn;
    try {
      const had = session.hasState();
      const own = session.fork();
      const extras = this.extras(setup, own);
      const position = new WalkPosition();
      const record = new WalkRecord(setup.kind, setup.driver, 'http');
      const { o } = this;
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
      let outcome: T;
      try {
        outcome = await run(walk);
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
      session.learn(had, outcome.pages);
      return outcome;
    } finally {
      session.leave();
    }
  }
}
