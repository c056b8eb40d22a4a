/**
 * A refusal counts only when it is the refusal a scenario is about (issue 13 item 3): a token
 * request refused with another error may have another cause (the client's own authentication, a
 * parameter the target wants), so it is judged only when a control request, the same without the
 * cause, succeeds; otherwise the result is an error reading "could not judge: …".
 */
import { CheckFailure, type HttpResponse, JudgementError, PreconditionError } from '../../harness/scenario/scenario.ts';
import { type Rule, describeResponse, expectOAuthError, wasAccepted } from './oauth.ts';

export interface RefusalCause {
  /** What the request is refused for, as a phrase: "the code being another client's". */
  cause: string;
  /** The control request, as a phrase: "a token request by confidential2 with its own code". */
  control: string;
  /** Runs the control: the same request without the cause. It must succeed (HTTP 200 with tokens). */
  run: () => Promise<HttpResponse>;
}

/**
 * `res` is an OAuth error with one of `codes` (pass); accepted (a security failure); or refused
 * otherwise, which fails as refused-wrongly only when the control succeeds, and is "could not
 * judge" when the control is refused too (or cannot be made).
 */
export async function expectRefusalFor(
  res: HttpResponse,
  codes: string | string[],
  rule: Rule,
  why: RefusalCause,
): Promise<void> {
  const allowed = Array.isArray(codes) ? codes : [codes];
  const error = res.body.error;
  const refused = !wasAccepted(res);
  if (refused && !(typeof error === 'string' && allowed.includes(error) && res.status >= 400 && res.status < 500)) {
    const cannot = (outcome: string) =>
      new JudgementError(
        `${rule.when} got ${describeResponse(res)}, but ${why.control} ${outcome} too, so the refusal cannot be ` +
          `put down to ${why.cause}`,
      );
    let control: HttpResponse;
    try {
      control = await why.run();
    } catch (caught) {
      if (caught instanceof PreconditionError || caught instanceof CheckFailure)
        throw cannot(`failed (${caught.message})`);
      throw caught;
    }
    if (control.status !== 200 || typeof control.body.access_token !== 'string')
      throw cannot(`got ${describeResponse(control)}`);
  }
  expectOAuthError(res, allowed, rule);
}

/**
 * The control of a negative verdict (a pass because something was refused): `run`, the sound
 * request, completes in the same run; if it fails too, the refusal shows nothing and the scenario
 * cannot judge ("could not judge: …, but the sound request failed too").
 */
export async function expectControl(refused: string, sound: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (caught) {
    if (caught instanceof PreconditionError || caught instanceof CheckFailure)
      throw new JudgementError(`${refused}, but the sound request failed too: ${sound} (${caught.message})`);
    throw caught;
  }
}
