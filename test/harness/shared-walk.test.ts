/**
 * A shortcut never changes a verdict (flows/flows.ts, sharedOrFresh): a walk from the run's shared session that does
 * not reach the redirect URI is done again on a fresh session, with a walk record; other walks are walked once, as
 * asked.
 */
import { describe, expect, it } from 'vitest';
import { PreconditionError } from '../../harness/model/failures.ts';
import type { AuthorizeOptions, AuthorizeOutcome } from '../../harness/login/driver.ts';
import { LoginSession } from '../../harness/login/session.ts';
import { sharedOrFresh } from '../../harness/flows/flows.ts';

const redirect: AuthorizeOutcome = { kind: 'redirect', url: 'https://app/cb?code=c', params: { code: 'c' }, pages: [] };
const page: AuthorizeOutcome = {
  kind: 'page',
  status: 200,
  url: 'https://idp/login?x=1',
  body: '',
  headline: 'Glewlwyd',
  reason: 'a page with no login form and no approve control',
  pages: [],
};

/** A driver that answers each walk from `answers` in turn, recording the session each asked for. */
function walker(...answers: (AuthorizeOutcome | Error)[]) {
  const sessions: AuthorizeOptions['session'][] = [];
  const walk = async (options: AuthorizeOptions): Promise<AuthorizeOutcome> => {
    sessions.push(options.session);
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  };
  return { walk, sessions };
}

describe('a walk from the shared session', () => {
  it('that reaches the redirect URI is walked once', async () => {
    const { walk, sessions } = walker(redirect);
    const records: string[] = [];
    expect(await sharedOrFresh({ session: 'shared' }, new LoginSession(), walk, (r) => records.push(r))).toBe(redirect);
    expect(sessions).toEqual(['shared']);
    expect(records).toEqual([]);
  });

  it('that stops on a page is done again on a fresh session, and only that walk counts', async () => {
    const { walk, sessions } = walker(page, redirect);
    const records: string[] = [];
    expect(await sharedOrFresh({ session: 'shared' }, new LoginSession(), walk, (r) => records.push(r))).toBe(redirect);
    expect(sessions).toEqual(['shared', 'fresh']);
    expect(records).toEqual([
      expect.stringMatching(
        /shared session .* and stopped at https:\/\/idp\/login \(HTTP 200\): a page with no login form.*fresh session/,
      ),
    ]);
  });

  it('that throws is done again on a fresh session; what the fresh walk ends with is the outcome', async () => {
    const { walk, sessions } = walker(new PreconditionError('step 1 (fill #username) found nothing'), page);
    const records: string[] = [];
    expect(await sharedOrFresh({ session: 'shared' }, new LoginSession(), walk, (r) => records.push(r))).toBe(page);
    expect(sessions).toEqual(['shared', 'fresh']);
    expect(records[0]).toMatch(/and failed: step 1 \(fill #username\) found nothing\./);
  });

  it('is walked once without sharing, when the IdP keeps no sign-in, or with no interaction asked', async () => {
    const forgetful = new LoginSession();
    forgetful.remembers = false;
    for (const [options, shared] of [
      [{ session: 'shared' }, undefined],
      [{ session: 'shared' }, forgetful],
      [{ session: 'shared', interact: false }, new LoginSession()],
      [{ session: 'fresh' }, new LoginSession()],
      [{}, new LoginSession()],
    ] as [AuthorizeOptions, LoginSession | undefined][]) {
      const { walk, sessions } = walker(page);
      expect(await sharedOrFresh(options, shared, walk, () => undefined)).toBe(page);
      expect(sessions).toEqual([options.session]);
    }
  });

  it('is not done again once the scenario has ended (its signal aborted)', async () => {
    const { walk, sessions } = walker(new Error('page closed'));
    const controller = new AbortController();
    controller.abort();
    await expect(
      sharedOrFresh({ session: 'shared' }, new LoginSession(), walk, () => undefined, controller.signal),
    ).rejects.toThrow('page closed');
    expect(sessions).toEqual(['shared']);
  });
});
