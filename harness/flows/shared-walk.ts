/**
 * A shortcut never changes a verdict. A walk that starts from the run's shared session (a sign-in, and a consent, the
 * IdP may remember from an earlier walk) is only a faster way to the same redirect. When it does not get there — it
 * stops on a page (a "signed in as … — Continue / Logout" page the configured steps do not fit, an error the shared
 * session caused), or it throws — it is done again on a fresh session before anything is judged, and the evidence
 * says so (a "walk record" note). Only the fresh walk's outcome is returned.
 */
import type { AuthorizeOptions, AuthorizeOutcome } from '../login/driver.ts';
import type { LoginSession } from '../login/session.ts';
import { describeError } from '../scenario/failures.ts';

/** The label of the evidence note that records a shared walk done again on a fresh session. */
export const WALK_RECORD = 'walk record';

/** Whether a walk with these options starts from the run's shared session (and so may be done again fresh). */
export function startsShared(options: AuthorizeOptions, shared: LoginSession | undefined): boolean {
  // interact: false asks for an answer without any page: a page is the answer, never a reason to sign in afresh.
  return (
    options.session === 'shared' && shared !== undefined && shared.remembers !== false && options.interact !== false
  );
}

/** Why a shared walk is done again, or undefined when it reached the redirect URI. */
function whyAgain(outcome: AuthorizeOutcome): string | undefined {
  if (outcome.kind === 'redirect') return undefined;
  return `stopped at ${outcome.url.split('?')[0]} (HTTP ${outcome.status}): ${outcome.reason}`;
}

/**
 * Runs `walk` from the shared session when `options` ask for it, and again on a fresh session when that walk does not
 * reach the redirect URI; `record` gets the walk record. A walk cut short by the scenario's end (`signal` aborted) is
 * not done again.
 */
export async function sharedOrFresh<T extends AuthorizeOutcome>(
  options: AuthorizeOptions,
  shared: LoginSession | undefined,
  walk: (options: AuthorizeOptions) => Promise<T>,
  record: (text: string) => void,
  signal?: AbortSignal,
): Promise<T> {
  if (!startsShared(options, shared)) return walk(options);
  let why: string | undefined;
  try {
    const outcome = await walk(options);
    why = whyAgain(outcome);
    if (!why) return outcome;
  } catch (error) {
    if (signal?.aborted) throw error;
    why = `failed: ${describeError(error)}`;
  }
  record(
    "This authorization started from the run's shared session (a sign-in remembered from an earlier walk) and " +
      `${why}. ` +
      'A shared session is a shortcut that must never change a verdict, so the walk was done again on a fresh ' +
      'session (the user signs in afresh); only that walk is judged.',
  );
  return walk({ ...options, session: 'fresh' });
}
