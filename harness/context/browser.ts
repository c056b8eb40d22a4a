/**
 * A scenario's browser side: the browser contexts it opens (closed all together when it ends, none
 * opened after; an emptied one given back to the run's browser) and its screenshots, saved to the
 * run's store and recorded as evidence (paused while a property's cases run).
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { ContextInput, Scope } from './scope.ts';
import { HarnessError } from '../model/failures.ts';
import type { BrowserState } from '../login/session.ts';

/** The browser contexts a scenario opens, closed all together when it ends (none can open after). */
export function browserContexts(input: ContextInput) {
  const opened = new Set<BrowserContext>();
  let disposed = false;
  /** A context from the run's browser, this scenario's to close (none once the scenario has ended). */
  const take = async (get: () => Promise<BrowserContext>): Promise<BrowserContext> => {
    if (disposed) throw new HarnessError(`scenario ${input.scenario.id} has ended; no browser context can be opened`);
    const context = await get();
    opened.add(context);
    return context;
  };
  const open = async (state?: BrowserState): Promise<BrowserContext> => {
    const context = await take(() => input.run.browser.newContext(state));
    context.on('close', () => opened.delete(context));
    return context;
  };
  /**
   * A context for a fresh walk, emptied by an earlier one when there is one (BrowserHost.emptiedContext). No 'close'
   * listener: the context serves many scenarios, and dispose closing one already closed does nothing.
   */
  const emptied = (): Promise<BrowserContext> => take(() => input.run.browser.emptiedContext());
  /** A context the walk emptied goes back to the run's browser, no longer this scenario's to close. */
  const giveBack = (context: BrowserContext): void => {
    if (!opened.delete(context) || disposed) {
      void context.close().catch(() => undefined);
      return;
    }
    input.run.browser.giveBack(context);
  };
  const dispose = async (): Promise<void> => {
    disposed = true;
    await Promise.all([...opened].map((c) => c.close().catch(() => undefined)));
  };
  return { open, emptied, giveBack, dispose };
}

/** A screenshot saved to the run's store and recorded as evidence; one that fails is a log line, never an error. */
export function screenshotTaker({ input, recorder, log, shots }: Scope) {
  return async (page: Page, label: string): Promise<void> => {
    if (shots.paused) {
      shots.skipped++;
      return;
    }
    try {
      // caret "initial": the caret is left as it is, which spares a style injected and removed around every shot
      const bytes = await page.screenshot({ type: 'png', caret: 'initial', timeout: 5_000 });
      const path = await input.run.screenshots.save(input.scenario.id, label, bytes);
      recorder.add({ kind: 'screenshot', label, path });
    } catch (error) {
      const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
      log.push(`screenshot "${label}" not taken: ${why}`);
    }
  };
}
