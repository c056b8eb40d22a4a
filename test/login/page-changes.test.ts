/**
 * A page that changes between its reading and the action (a single-page app that replaced its grant panel by a
 * "Continue" view): the actuator says so (PageChanged) without acting, and the walk reads the page again and decides
 * anew, a few times at most, instead of failing the walk on a control that is no longer shown.
 */
import { describe, expect, it } from 'vitest';
import {
  type Action,
  type Actuator,
  type ActuatorEnd,
  PageChanged,
  type Reading,
} from '../../harness/login/actuator.ts';
import { readPage } from '../../harness/login/html.ts';
import { classify } from '../../harness/login/page.ts';
import { WalkPosition } from '../../harness/login/walk-errors.ts';
import { WalkRecord } from '../../harness/login/walk-record.ts';
import { PageWalk } from '../../harness/login/walk.ts';

const GRANT =
  '<h1>Connection to web-app</h1><p>The app wants access to your profile</p>' +
  '<form action="/grant" method="post"><button>Grant access</button></form>';
const SIGNED_IN = '<h1>Hello Alice</h1><form action="/continue" method="post"><button>Continue</button></form>';

function reading(html: string): Reading {
  const model = readPage(html, 'https://idp.test/login.html', 200);
  return { model, cls: classify(model), snapshot: '' };
}

/** An actuator whose page is `pages[i]`; an action on a page listed in `changes` finds it changed (the next page). */
function fakeActuator(
  pages: string[],
  changes: number,
  /** After an action that went through: a redirect to the client (the walk's end), or the next page. */
  then: 'redirect' | 'next page' = 'redirect',
): Actuator & { pressed: string[] } {
  let at = 0;
  let changed = 0;
  let end: ActuatorEnd | undefined;
  const pressed: string[] = [];
  return {
    name: 'browser',
    loginHint: '',
    renderWait: '',
    position: new WalkPosition(),
    pressed,
    get end() {
      return end;
    },
    async open() {},
    async read() {
      return reading(pages[Math.min(at, pages.length - 1)]!);
    },
    refuse: () => undefined,
    async perform(action: Action) {
      if (changed < changes) {
        changed++;
        at++;
        throw new PageChanged('the control is no longer shown');
      }
      pressed.push(action.kind === 'press' ? action.control.text : action.kind);
      if (then === 'next page') at++;
      else end = { kind: 'redirect', url: 'https://app.test/cb?code=c1', params: { code: 'c1' } };
    },
    async visit(kind) {
      return { kind, url: 'https://idp.test/login.html', status: 200 } as never;
    },
    async endPage(reason: string) {
      return { status: 200, url: 'https://idp.test/login.html', body: '', headline: '', reason } as never;
    },
    async redirects() {
      return [];
    },
  };
}

const walkWith = (a: Actuator) =>
  new PageWalk(a, {
    username: 'alice',
    password: 'p4ssword',
    position: a.position,
    record: new WalkRecord('authorization', 'browser', 'browser'),
  });

describe('a page that changes under the walk', () => {
  it('is read again: the grant panel became a Continue view, and Continue is pressed', async () => {
    const a = fakeActuator([GRANT, SIGNED_IN], 1);
    const outcome = await walkWith(a).authorize('https://idp.test/auth', {});
    expect(outcome).toMatchObject({ kind: 'redirect', params: { code: 'c1' } });
    expect(a.pressed).toEqual(['Continue']);
    // The consent page the walk did not act on is not counted as passed.
    expect(outcome.pages).not.toContain('consent');
  });

  it('on the device activation: the user-code page re-rendered before the code was typed is read again', async () => {
    // The race seen on a loaded machine: the page changed between reading and typing, and the walk used to end there
    // with the reason "changed". Nothing was sent, so the code is typed on the page read again.
    const CODE =
      '<h1>Activate a device</h1><form action="/activate" method="post"><input name="user_code">' +
      '<button>Continue</button></form>';
    const DONE = '<h1>Your device is connected</h1><p>You may close this window.</p>';
    const a = fakeActuator([CODE, CODE, DONE], 1, 'next page');
    const outcome = await walkWith(a).activate({
      verificationUri: 'https://idp.test/activate',
      userCode: 'ABCD-EFGH',
      decision: 'approve',
    });
    expect(a.pressed).toEqual(['fill']);
    expect(JSON.stringify(outcome)).not.toContain('"changed"');
  });

  it('is read again a few times at most: a page that keeps changing ends the walk with the cause', async () => {
    const a = fakeActuator([GRANT], 10);
    await expect(walkWith(a).authorize('https://idp.test/auth', {})).rejects.toThrow(PageChanged);
  });
});
