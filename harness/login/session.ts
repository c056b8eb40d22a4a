/**
 * An IdP session as a user agent keeps it: the cookies (RFC 6265, by tough-cookie: Domain,
 * Path, Secure, expiry, public suffixes) the form driver sends, and the browser's storage state
 * (cookies and local storage) the browser driver starts from. A walk either starts from a fresh
 * session, or shares one with other walks so the IdP's sign-in (and remembered consent) carries
 * over — what a user sees who signs in once and uses several applications.
 */
import { CookieJar } from 'tough-cookie';

/** Playwright's storage state (browserContext.storageState()), kept opaque here. */
export type BrowserState = Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>>;

function newJar(): CookieJar {
  return new CookieJar(undefined, { allowSpecialUseDomain: true, rejectPublicSuffixes: true, looseMode: true });
}

export class LoginSession {
  /** @param label how reports name this session (ctx.loginSession(label)). */
  constructor(readonly label = 'login session') {}
  /** The form driver's cookies. Special-use names such as *.localhost are allowed (tests, local IdPs). */
  jar = newJar();
  /** The browser driver's state after the last walk through it, when there was one. */
  browserState: BrowserState | undefined;
  /**
   * Whether the IdP remembers a sign-in on this session: false once a walk that started from a
   * signed-in state still had to sign in. The run's shared session then stops being shared (its
   * walks would only wait for each other), and "shared" walks start fresh.
   */
  remembers: boolean | undefined;

  /** Whether the session holds anything a walk would start from (cookies, or a browser's state). */
  hasState(): boolean {
    return (this.jar.serializeSync()?.cookies.length ?? 0) > 0 || (this.browserState?.cookies.length ?? 0) > 0;
  }

  /** Whether a walk on this session signed in and left something behind a remembered sign-in could be kept in. */
  #signedIn = false;

  /**
   * What a walk learned. One that started after a sign-in on this session and still had to sign in, or one that signed
   * in and left nothing behind (no cookie, no storage), shows the IdP keeps no sign-in. A walk that never reached a
   * login page (refused before it, say) shows nothing either way, even when its cookies are all the session holds.
   */
  learn(startedWithState: boolean, pages: readonly string[]): void {
    const signsIn = pages.includes('login');
    if (startedWithState && this.#signedIn) this.remembers = !signsIn;
    else if (signsIn) {
      if (this.hasState()) this.#signedIn = true;
      else this.remembers = false;
    }
  }

  /** Whether a walk is on this session now, and the walks waiting for their turn (first come, first served). */
  #busy = false;
  readonly #waiting: (() => void)[] = [];

  /**
   * Takes this session for one walk: an IdP keeps one server-side session per cookie, and two interactions on it at
   * once can spoil each other (oidc-provider answers the second one's resume with an error). Returns nothing when the
   * session was free (the walk has it now), else the promise of its turn; `leave()` when the walk ends. Walks on fresh
   * sessions never wait. Not a wrapper around the walk: a walk that finds the session free goes on without a pause.
   */
  enter(): Promise<void> | undefined {
    if (!this.#busy) {
      this.#busy = true;
      return undefined;
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** The walk that entered has ended: the next one waiting gets the session. */
  leave(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#busy = false;
  }

  /** Runs `walk` when it is its turn on this session (enter, then leave when it ends). */
  async exclusive<T>(walk: () => Promise<T>): Promise<T> {
    const turn = this.enter();
    if (turn) await turn;
    try {
      return await walk();
    } finally {
      this.leave();
    }
  }

  /**
   * A copy for one walk: walks that share a session run at the same time, and one walk's
   * transaction cookies must not land in another's requests halfway through.
   */
  fork(): LoginSession {
    const copy = new LoginSession();
    copy.jar = CookieJar.deserializeSync(this.jar.serializeSync() ?? newJar().serializeSync()!);
    copy.browserState = this.browserState;
    return copy;
  }

  /** Takes over what a walk on a fork ended with (the last walk to end wins). */
  adopt(walk: LoginSession): void {
    this.jar = walk.jar;
    if (walk.browserState) this.browserState = walk.browserState;
  }

  /** The Cookie header for a request to `url` (undefined when no cookie applies). */
  cookieHeader(url: string): string | undefined {
    const header = this.jar.getCookieStringSync(url);
    return header || undefined;
  }

  /**
   * Keeps the Set-Cookie lines of a response from `url`; a line the jar refuses (a foreign Domain, a bad prefix) is
   * dropped.
   */
  store(url: string, setCookies: readonly string[]): void {
    for (const line of setCookies) {
      try {
        this.jar.setCookieSync(line, url, { ignoreError: true });
      } catch {
        // an unparseable line: a browser would drop it too
      }
    }
  }
}

/**
 * Which IdP session an authorization starts from: `fresh` (a new, empty one: the user signs in),
 * `shared` (the run's one session, shared with every walk that asks for it: a remembered sign-in
 * skips the login page), or a LoginSession of the scenario's own (e.g. two authorizations that
 * must share one sign-in, and no other).
 */
export type SessionChoice = 'fresh' | 'shared' | LoginSession;

/** The session a walk uses. */
export function sessionFor(choice: SessionChoice | undefined, shared: LoginSession | undefined): LoginSession {
  if (choice instanceof LoginSession) return choice;
  if (choice === 'shared' && shared && shared.remembers !== false) return shared;
  return new LoginSession();
}

/** Runs a walk on `session` (one at a time), and learns from its pages whether the IdP remembers the sign-in. */
export function walkOn<T extends { pages: readonly string[] }>(
  session: LoginSession,
  walk: () => Promise<T>,
): Promise<T> {
  return session.exclusive(async () => {
    const had = session.hasState();
    const outcome = await walk();
    session.learn(had, outcome.pages);
    return outcome;
  });
}
