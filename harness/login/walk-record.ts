/**
 * What a walk tells about itself: where it is (for an error that names the page, the element and the step) and, at its
 * end, the record report.json keeps of it — the driver, the actuators it used, and where and why it went on in the
 * browser (results.ts LoginWalk).
 */
import type { LoginWalk } from '../model/results.ts';
import type { Action, Reading } from './actuator.ts';
import { type PageControl, reads } from './page.ts';
import type { WalkPosition } from './walk-errors.ts';

/** What a control shows, for a message: its label, else its name, else its tag. */
export function shown(c: PageControl): string {
  return reads(c).label || c.name || c.tag;
}

/** A control as an error names it: `the button "Sign in"`, `the password input "Password"`. */
export function describeControl(c: PageControl): string {
  return `the ${c.tag === 'a' ? 'link' : c.tag === 'input' ? `${c.type} input` : c.tag} "${shown(c)}"`;
}

const FILLED: Record<Extract<Action, { kind: 'fill' }>['what'], string> = {
  login: 'the login form',
  identifier: 'the username',
  'user-code': 'the user code',
};

/** What the walk is about to do, for an error's "while …, at …". */
export function stepOn(position: WalkPosition, action: Action): void {
  if (action.kind === 'fill') {
    const last = action.fills.at(-1)?.control;
    const at = action.submit ?? last;
    position.at(`submitting ${FILLED[action.what]}`, at && describeControl(at));
  } else if (action.what === 'consent')
    position.at(
      `${action.decision === 'deny' ? 'denying' : 'approving'} on the consent page`,
      describeControl(action.control),
    );
  else position.at('going on from an interstitial page', describeControl(action.control));
}

/** A walk's record, filled in as it goes. */
export class WalkRecord {
  readonly #walk: LoginWalk;
  constructor(kind: LoginWalk['kind'], driver: LoginWalk['driver'], first: 'http' | 'browser') {
    this.#walk = { kind, driver, used: [first] };
  }

  /** The walk goes on in the browser from the page of `reading`, for `reason`. */
  switched(reading: Reading, reason: string, remembered = false): void {
    const { model, cls } = reading;
    const title = model.headline ? ` "${model.headline}"` : '';
    this.#walk.used.push('browser');
    this.#walk.switched = {
      url: model.url.split(/[?#]/)[0] ?? model.url,
      page: `${cls.kind === 'other' ? 'a page' : `a ${cls.kind} page`}${title} (HTTP ${model.status})`,
      reason,
      ...(remembered ? { remembered: true as const } : {}),
    };
  }

  get value(): LoginWalk {
    return { ...this.#walk, used: [...this.#walk.used] };
  }
}
