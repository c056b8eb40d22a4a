/**
 * Nothing a login walk throws is "a bug in the harness". A Playwright timeout (an element found but never visible,
 * enabled or clickable), a page closed under the driver, a navigation that races a click, a URL on a page that does
 * not parse, a connection that drops: each becomes an error that names the page, the element and the step, so the
 * scenario is an `error` a reader can act on (the browser driver adds a screenshot of where it stopped).
 */
import { HarnessError, PreconditionError, TargetUnreachableError } from '../model/failures.ts';

/** Where a walk is: the page it acts on, the step it takes, the element it acts on. Updated as the walk goes. */
export class WalkPosition {
  page: { url: string; title?: string } | undefined;
  step = 'opening the first page';
  element: string | undefined;

  /** The walk is about to take `step` (on `element`, when it acts on one). */
  at(step: string, element?: string): void {
    this.step = step;
    this.element = element;
  }

  /** The walk is on a new page, reading it. */
  onPage(url: string, title?: string): void {
    this.page = { url, ...(title ? { title } : {}) };
    this.at('reading the page');
  }

  /** "while signing in, on the button "Sign in", on "Sign in" (http://idp/login)". */
  describe(): string {
    const page = this.page
      ? ` on ${this.page.title ? `"${this.page.title}" (${this.page.url.split('?')[0]})` : this.page.url.split('?')[0]}`
      : '';
    return `while ${this.step}${this.element ? `, at ${this.element}` : ''}${page}`;
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * What a browser (Playwright) failure means, in the words a deployer reads (the library's own message follows), or
 * undefined when it is none of those.
 */
export function browserTrouble(error: unknown): string | undefined {
  const name = error instanceof Error ? error.name : typeof error;
  const message = firstLine(error);
  if (name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(message))
    return `the element was found but did not become visible, enabled and clickable in time (${message})`;
  if (/has been closed|Target closed|Target page, context or browser/i.test(message))
    return `the page was closed while the driver acted on it (${message})`;
  if (/Execution context was destroyed|frame was detached|navigat|not attached to the DOM/i.test(message))
    return `the page navigated away while the driver acted on it (${message})`;
  return undefined;
}

/** What went wrong, in the words a deployer reads (the library's own message follows). */
function explain(error: unknown): string {
  const name = error instanceof Error ? error.name : typeof error;
  const message = firstLine(error);
  const trouble = browserTrouble(error);
  if (trouble) return trouble;
  if (error instanceof TypeError && /Invalid URL/i.test(message))
    return `a URL on the page could not be parsed (${message})`;
  return `${name}: ${message}`;
}

/**
 * The error a walk's failure becomes: the harness's own errors (a config step that found nothing, a refused origin, a
 * timeout of the scenario) as they are; a connection that failed stays TargetUnreachableError (the target stopped
 * answering) with where the walk was; anything else a PreconditionError naming the page, the element and the step.
 */
export function walkFailure(driver: string, position: WalkPosition, error: unknown): Error {
  if (error instanceof TargetUnreachableError) {
    const cause = error.message.replace(/^cannot reach \S+: /, '');
    return new TargetUnreachableError(error.url, `${cause} (the ${driver} login driver, ${position.describe()})`);
  }
  // ScenarioTimeoutError, OffOriginError and PreconditionError are HarnessErrors.
  if (error instanceof HarnessError) return error;
  if (error instanceof Error && error.name === 'AbortError') return error;
  return new PreconditionError(`the ${driver} login driver could not go on ${position.describe()}: ${explain(error)}`);
}
