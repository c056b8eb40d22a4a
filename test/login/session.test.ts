/**
 * IdP sessions (harness/login/session.ts): cookies by tough-cookie, a copy per walk, one walk at a time on a shared
 * one.
 */
import { describe, expect, it } from 'vitest';
import { LoginSession, sessionFor, walkOn } from '../../harness/login/session.ts';

describe('a login session', () => {
  it('a walk works on a copy; the session takes over the copy when the walk ends', () => {
    const shared = new LoginSession();
    shared.store('http://idp.test/', ['sid=1; Path=/']);
    const walk = shared.fork();
    walk.store('http://idp.test/', ['txn=2; Path=/']);
    expect(shared.cookieHeader('http://idp.test/')).toBe('sid=1');
    shared.adopt(walk);
    expect(shared.cookieHeader('http://idp.test/')).toBe('sid=1; txn=2');
  });

  it('runs walks one at a time, in order, also after one fails', async () => {
    const session = new LoginSession();
    const order: string[] = [];
    let release!: () => void;
    const first = session.exclusive(async () => {
      order.push('a start');
      await new Promise<void>((r) => {
        release = r;
      });
      order.push('a end');
      throw new Error('a failed');
    });
    const second = session.exclusive(async () => {
      order.push('b');
      return 2;
    });
    await Promise.resolve();
    expect(order).toEqual(['a start']);
    release();
    await expect(first).rejects.toThrow('a failed');
    expect(await second).toBe(2);
    expect(order).toEqual(['a start', 'a end', 'b']);
  });

  it("the run's session stops being shared once a walk that started signed in had to sign in again", async () => {
    const run = new LoginSession();
    await walkOn(run, async () => {
      run.store('http://idp.test/', ['sid=1']);
      return { pages: ['login', 'consent'] };
    });
    await walkOn(run, async () => ({ pages: [] }));
    expect(run.remembers).toBe(true);
    expect(sessionFor('shared', run)).toBe(run);
    await walkOn(run, async () => ({ pages: ['login', 'consent'] }));
    expect(run.remembers).toBe(false);
    expect(sessionFor('shared', run)).not.toBe(run);
    const empty = new LoginSession();
    await walkOn(empty, async () => ({ pages: ['login'] }));
    expect(empty.remembers).toBe(false); // the walk signed in and left no cookie to remember a sign-in by
  });

  it('a walk that never reached a login page teaches nothing, whatever cookies it left', async () => {
    const run = new LoginSession();
    await walkOn(run, async () => ({ pages: [] })); // refused before any login: no cookie
    expect(run.remembers).toBeUndefined();
    await walkOn(run, async () => {
      run.store('http://idp.test/', ['lang=en']); // an error page that sets a cookie
      return { pages: [] };
    });
    await walkOn(run, async () => ({ pages: ['login'] })); // the first sign-in: not one the IdP forgot
    expect(run.remembers).toBeUndefined();
    expect(sessionFor('shared', run)).toBe(run);
  });

  it('"fresh" (and no choice) is a new session; "shared" the run\'s; a LoginSession itself', () => {
    const run = new LoginSession();
    const own = new LoginSession();
    expect(sessionFor(undefined, run)).not.toBe(run);
    expect(sessionFor('fresh', run)).not.toBe(run);
    expect(sessionFor('shared', run)).toBe(run);
    expect(sessionFor(own, run)).toBe(own);
  });
});
