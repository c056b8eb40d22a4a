/**
 * The one page walk of every login driver: an authorization (login, consent, interstitials, up to the redirect to the
 * redirect_uri) or a device activation (the user code, login, the decision), page by page. Each page is read through
 * the walk's actuator (actuator.ts: HTTP or Chromium) into the one page model, classified by page.ts, and answered by
 * the action a user would take; the actuator does it. Where the actuator cannot do it as the page means it, the walk
 * stops (the form driver), or — when it may hand over (the auto driver) — goes on in the browser from the same page.
 * The drivers differ only in their actuators, so their walks cannot drift apart.
 */
import { PreconditionError } from '../model/failures.ts';
import {
  type Action,
  type Actuator,
  type ActuatorEnd,
  FORM_POST_PAGE,
  type Fill,
  MAX_PAGE_CHANGES,
  PageChanged,
  type Reading,
  type Refusal,
  USE_BROWSER,
} from './actuator.ts';
import type {
  AuthorizeOptions,
  AuthorizeOutcome,
  DeviceActivation,
  DeviceActivationOutcome,
  PageKind,
  PageVisit,
} from './driver.ts';
import { type PageControl, says } from './page.ts';
import type { StepsResult, WalkSettings } from './walk-settings.ts';
import { asksNothing, renderedByScript, stopReason } from './walk-stops.ts';
import { stepOn } from './walk-record.ts';

/** The most actions (a fill-and-submit, a click) one walk takes. */
export const MAX_ACTIONS = 15;

const STEPS_LEFT_LOGIN = 'the login form is still shown after the configured steps (do the steps fill and submit it?)';

export class PageWalk {
  readonly pages: PageKind[] = [];
  readonly visits: PageVisit[] = [];
  logins = 0;
  /** How often the page changed under an action (PageChanged) in this walk. */
  #changes = 0;
  identified = 0;
  #a: Actuator;
  /** The actuators the walk used before the one it uses now (the HTTP one, after a hand-over). */
  readonly #past: Actuator[] = [];
  #stepsRun = false;
  #decision: 'approve' | 'deny' = 'approve';
  /** AuthorizeOptions.signIn: false stops at any login or identifier form. */
  #signIn = true;

  constructor(
    actuator: Actuator,
    private readonly s: WalkSettings,
  ) {
    this.#a = actuator;
  }

  get actuator(): Actuator {
    return this.#a;
  }

  get consentShown(): boolean {
    return this.pages.includes('consent');
  }

  /** How the actuator's walk ended, read afresh (an action since the last look may have ended it). */
  #end(): ActuatorEnd | undefined {
    return this.#a.end;
  }

  /** Reads the page (the actuator notes where the walk is). */
  #read(wantsUserCode: boolean, settle = true): Promise<Reading> {
    return this.#a.read(wantsUserCode, settle);
  }

  /** Goes on in the browser from this page, when the walk may (the auto driver); false when it may not. */
  async #handOver(reading: Reading, why: string, remembered = false): Promise<boolean> {
    if (!this.s.handOver || this.#a.name !== 'http') return false;
    this.s.record.switched(reading, why, remembered);
    // A form_post page is handed over wherever it is met (it is seen by its form, not by where it is served): not
    // remembered, so that another page at the same path is not sent to the browser for it.
    if (why !== FORM_POST_PAGE) this.s.memory?.remember(reading, this.#decision, why);
    const next = await this.s.handOver(this.#a, reading, why);
    this.#past.push(this.#a);
    this.#a = next;
    return true;
  }

  /**
   * Hands over at once a page that needs the browser: one rendered by script, or one an earlier walk needed the browser
   * on. true when the walk is now in the browser.
   */
  async #needsBrowser(reading: Reading, early = true): Promise<boolean> {
    if (!this.s.handOver || this.#a.name !== 'http') return false;
    const remembered = this.s.memory?.recall(reading, this.#decision);
    if (remembered) return this.#handOver(reading, remembered, true);
    return early && renderedByScript(this.#a, reading) && this.#handOver(reading, 'a page rendered by script');
  }

  /**
   * Runs the configured steps (in the browser: over HTTP the walk is handed over first). The page is read once it has
   * rendered: one that shows a signed-in user's choice ("Continue") or a consent is no sign-in page, and the steps,
   * written for a sign-in, are not run there (`notRun`): the walk answers it as it answers any such page.
   */
  async #runSteps(reading: Reading, decision: 'approve' | 'deny', first = false): Promise<StepsResult> {
    this.#stepsRun = true;
    if (this.#a.name === 'http' && !(await this.#handOver(reading, 'the configured login steps run in a browser')))
      return { failed: `the configured login steps need the browser; ${USE_BROWSER}`, decided: false };
    if (first && reading.cls.kind === 'other') {
      const rendered = await this.#read(false);
      if (!this.#a.end && (rendered.cls.kind === 'continue' || rendered.cls.kind === 'consent')) {
        this.#stepsRun = false;
        return { decided: false, notRun: true };
      }
    }
    return this.s.steps!.run(this.#a, decision, (kind) => this.#passed(kind));
  }

  /** Does `action` on the page, or says why not: a stop reason (undefined: the page's own), or 'handed' over. */
  async #do(
    action: Action,
    reading: Reading,
    kind?: PageKind,
  ): Promise<'acted' | 'handed' | 'changed' | string | undefined> {
    stepOn(this.s.position, action);
    const refusal: Refusal | undefined = this.#a.refuse(action, reading);
    if (refusal) {
      if (await this.#handOver(reading, refusal.why)) return 'handed';
      if (refusal.fails) throw new PreconditionError(refusal.message ?? refusal.why);
      return refusal.message;
    }
    if (kind) await this.#passed(kind);
    try {
      await this.#a.perform(action, reading);
    } catch (error) {
      // The page re-rendered between reading and acting: nothing was done, so read it again (a few times at most).
      if (!(error instanceof PageChanged) || this.#changes >= MAX_PAGE_CHANGES) throw error;
      this.#changes++;
      if (kind) {
        this.pages.pop();
        this.visits.pop();
      }
      return 'changed';
    }
    return 'acted';
  }

  async #passed(kind: PageKind): Promise<void> {
    this.pages.push(kind);
    this.visits.push(await this.#a.visit(kind));
  }

  /**
   * One action on a login, identifier, consent or interstitial page: 'acted', 'handed' (over to the browser), or why
   * the walk stops (undefined: nothing to do).
   */
  async #act(
    reading: Reading,
    decision: 'approve' | 'deny',
  ): Promise<'acted' | 'handed' | 'changed' | string | undefined> {
    const { cls } = reading;
    const steps = this.s.steps !== undefined;
    if (cls.kind === 'login') {
      if (steps) return STEPS_LEFT_LOGIN;
      if (this.logins > 0)
        return `the login form came back after the credentials were submitted (${this.#a.loginHint})`;
      const fills: Fill[] = [];
      if (cls.username) fills.push({ control: cls.username, role: 'username', value: this.s.username });
      fills.push({ control: cls.password, role: 'password', value: this.s.password });
      const done = await this.#do({ kind: 'fill', what: 'login', fills, ...submit(cls.submit) }, reading, 'login');
      if (done === 'acted') this.logins++;
      return done;
    }
    if (cls.kind === 'identifier') {
      if (steps) return STEPS_LEFT_LOGIN;
      if (this.identified > 0)
        return 'the identifier (username) page came back after the username was submitted (wrong user?)';
      const fills: Fill[] = [{ control: cls.username, role: 'username', value: this.s.username }];
      const done = await this.#do({ kind: 'fill', what: 'identifier', fills, ...submit(cls.submit) }, reading, 'login');
      if (done === 'acted') this.identified++;
      return done;
    }
    if (cls.kind === 'consent') {
      const control = decision === 'approve' ? cls.approve : cls.deny;
      if (!control) return undefined;
      const other = decision === 'approve' ? cls.deny : cls.approve;
      // An approving user ticks what the page asks to be ticked (per-scope consent); a denying one ticks nothing.
      const check = decision === 'approve' ? cls.choices : [];
      return this.#do(
        { kind: 'press', what: 'consent', control, decision, ...(other ? { other } : {}), check },
        reading,
        'consent',
      );
    }
    if (cls.kind === 'continue')
      return this.#do({ kind: 'press', what: 'continue', control: cls.submit, check: [] }, reading);
    return undefined;
  }

  /** The authorization request, walked to the redirect to the redirect_uri or to the page where it stops. */
  async authorize(url: string, options: AuthorizeOptions): Promise<AuthorizeOutcome> {
    const decision = options.consent ?? 'approve';
    this.#decision = decision;
    this.#signIn = options.signIn !== false;
    this.s.position.at('opening the authorization URL');
    await this.#a.open(url, options.method);
    if (options.interact === false && !this.#a.end) {
      const reading = await this.#read(false, false);
      if (!this.#a.end) {
        if (reading.model.forms.length > 0)
          return this.#stop(
            `a page the user would have to act on (HTTP ${reading.model.status}); ` +
              'this request asked for no interaction',
          );
        return this.#stop(stopReason(this.#a, reading.model, reading.cls, decision), reading.cls.kind === 'error', {
          asksNothing: asksNothing(this.#a, reading),
        });
      }
    }
    let stepsPending = this.s.steps !== undefined && this.#signIn;
    for (let n = 0; n < MAX_ACTIONS && !this.#a.end; n++) {
      if (stepsPending) {
        stepsPending = false;
        const first = await this.#read(false, false);
        if (this.#a.end) break;
        // A remembered sign-in (a shared session) may skip the login page: steps only run where there is one.
        if (first.cls.kind === 'login' || first.cls.kind === 'identifier' || first.cls.kind === 'other') {
          const { failed } = await this.#runSteps(first, decision, true);
          if (failed) return this.#stop(failed);
          continue;
        }
      }
      const reading = await this.#read(false);
      const end = this.#end();
      // A form_post form taken off the page over HTTP: the browser shows whether the page submits it by itself.
      if (end?.kind === 'redirect' && end.taken && (await this.#handOver(reading, FORM_POST_PAGE))) continue;
      if (end) break;
      const unsent = this.#a.unsentForm;
      if (unsent) {
        const fields = unsent.fields.join(', ') || 'none';
        return this.#stop(
          `the page holds a form to the redirect URI (${unsent.method}, fields ${fields}) and did not submit it ` +
            `within ${unsent.waitedMs} ms`,
        );
      }
      if (!this.#signIn && (reading.cls.kind === 'login' || reading.cls.kind === 'identifier'))
        return this.#stop(`a sign-in page (HTTP ${reading.model.status}); this walk signs no one in`, false, {
          signInPage: true,
        });
      if (await this.#needsBrowser(reading)) continue;
      const done = await this.#act(reading, decision);
      if (done === 'acted' || done === 'handed' || done === 'changed') continue;
      return this.#stop(
        done ?? stopReason(this.#a, reading.model, reading.cls, decision),
        reading.cls.kind === 'error',
        {
          asksNothing: done === undefined && asksNothing(this.#a, reading),
        },
      );
    }
    return this.#stop(this.#a.end ? '' : `no redirect to the redirect_uri within ${MAX_ACTIONS} actions`);
  }

  /** The outcome at the walk's end: the redirect caught, or the page it stopped on. */
  async #stop(
    reason: string,
    errorPage = false,
    { signInPage = false, asksNothing = false } = {},
  ): Promise<AuthorizeOutcome> {
    const a = this.#a;
    const end = a.end;
    if (end?.kind === 'refused') throw end.error;
    const { pages, visits } = this;
    const all = [...this.#past, a];
    const redirects = (await Promise.all(all.map((x) => x.redirects()))).flat();
    const requests = all.flatMap((x) => x.requests ?? []);
    const lists = { pages, visits, ...(a.requests ? { requests } : {}), redirects };
    const consentShown = this.consentShown;
    if (end?.kind === 'redirect') {
      const { taken, ...rest } = end;
      return { ...rest, ...(taken ? { formTaken: true as const } : {}), ...lists, consentShown };
    }
    if (end?.kind === 'left')
      return { kind: 'page', ...(await a.endPage(end.reason)), location: end.url, ...lists, consentShown };
    const page = await a.endPage(end?.kind === 'gave-up' ? end.reason : reason);
    const unsent = a.unsentForm;
    const flags = {
      ...(errorPage && !end ? { errorPage: true } : {}),
      ...(asksNothing && !end ? { asksNothing: true } : {}),
      ...(signInPage ? { signInPage: true } : {}),
      ...(unsent ? { unsentForm: unsent } : {}),
    };
    return { kind: 'page', ...page, ...flags, ...lists, consentShown };
  }

  /**
   * Opens verification_uri_complete when given (unless declined), else verification_uri, types the user code where it
   * is asked, logs in (by the configured steps, when there are any, before or after the code), and gives the decision
   * wherever it is asked — before or after the login, on one page or two. Ends at the first page that offers nothing
   * more to do.
   */
  async activate(activation: DeviceActivation): Promise<DeviceActivationOutcome> {
    const complete =
      activation.verificationUriComplete && activation.useComplete !== false
        ? activation.verificationUriComplete
        : undefined;
    const { decision } = activation;
    this.#decision = decision;
    let codeSent = false;
    /** The code is in: typed and sent, or carried by verification_uri_complete. */
    let codeIn = complete !== undefined;
    let decided = false;
    const end = async (reason: string, done = decided): Promise<DeviceActivationOutcome> => {
      const outcome = await this.#stop(reason);
      if (outcome.kind === 'redirect') throw new PreconditionError(`the device activation was sent to ${outcome.url}`);
      const { kind: _, errorPage: __, ...page } = outcome;
      return { decided: done, ...page };
    };
    this.s.position.at('opening the verification URI');
    await this.#a.open(complete ?? activation.verificationUri);
    for (let n = 0; n < MAX_ACTIONS; n++) {
      if (this.#a.end) return end('');
      const reading = await this.#read(!codeSent);
      const { cls, model } = reading;
      const status = `HTTP ${model.status}`;
      if (cls.kind === 'user-code') {
        if (codeSent || decided) {
          return end(
            decided
              ? `the user-code form came back after the decision (${status}): the activation is over`
              : `the user-code form came back after the code was submitted (${status}): the code was not accepted?`,
          );
        }
        const fills: Fill[] = [{ control: cls.input, role: 'user-code', value: activation.userCode }];
        const done = await this.#do(
          { kind: 'fill', what: 'user-code', fills, ...submit(cls.submit) },
          reading,
          'user-code',
        );
        // 'changed': the page re-rendered between reading and typing (nothing was sent): read it again.
        if (done === 'handed' || done === 'changed') continue;
        if (done !== 'acted') return end(done ?? stopReason(this.#a, model, cls, decision));
        codeSent = true;
        codeIn = true;
        continue;
      }
      // The steps log in: on the first login page, before or after the code, or on the first page after the code that
      // asks for no decision.
      const signIn = cls.kind === 'login' || cls.kind === 'identifier';
      if (this.s.steps && !this.#stepsRun && (signIn || (codeIn && cls.kind !== 'consent' && cls.kind !== 'error'))) {
        const run = await this.#runSteps(reading, decision);
        if (run.failed) return end(run.failed);
        decided ||= run.decided;
        continue;
      }
      // A decision counts only once the code is in: before it, a "Cancel" would cancel nothing.
      if (cls.kind === 'consent' && !codeIn)
        return end(`a page that asks for a decision before the user code was entered (${status})`);
      // A page rendered by script before the code is in, or before anyone signed in or decided: the browser reads it.
      if (await this.#needsBrowser(reading, !codeIn || (!decided && this.logins === 0 && !this.#stepsRun))) continue;
      const done = await this.#act(reading, decision);
      if (done === 'handed' || done === 'changed') continue;
      if (done === 'acted') {
        decided ||= cls.kind === 'consent';
        continue;
      }
      if (done) return end(done);
      if (!codeIn) {
        const why = renderedByScript(this.#a, reading)
          ? `no user-code input at the verification URI, and the page runs scripts (${status}): an input rendered ` +
            `by script needs the browser; ${USE_BROWSER}`
          : `no input for the user code at the verification URI ` +
            `(${status}${this.#a.renderWait ? `; ${this.#a.renderWait}` : ''})`;
        return end(why);
      }
      if (cls.kind === 'error') return end(`the activation ended on an error page (${status})`);
      if (cls.kind === 'other' && !cls.controls) {
        // The end of the activation. Approving by signing in counts: the IdP asked nothing more.
        const approvedBySignIn = decision === 'approve' && (this.logins > 0 || this.#stepsRun);
        return end(`the activation ended on a page without a form (${status})`, decided || approvedBySignIn);
      }
      if (cls.kind !== 'consent' && decision === 'deny' && model.controls.some((c) => c.visible && says(c, 'approve')))
        return end(`a page that asks for approval but offers no deny, cancel or abort button (${status})`);
      return end(stopReason(this.#a, model, cls, decision));
    }
    return end(`the activation did not end within ${MAX_ACTIONS} actions`);
  }
}

/** `{ submit }` when there is a submit control. */
function submit(control: PageControl | undefined): { submit?: PageControl } {
  return control ? { submit: control } : {};
}
