/**
 * The target config's login block: the driver (auto, form or browser), the HTTP drivers' form
 * field names and User-Agent, whether walks share a session or load assets, and the browser steps
 * (fill, click, check, waitFor) with their options.
 */
import { z } from 'zod';

const selector = (what: string) =>
  z.string().min(1).describe(`A Playwright selector (CSS, text=…, role=…) of the element to ${what}.`);
const stepOptions = {
  optional: z
    .boolean()
    .optional()
    .describe('Skip the step when its element does not appear (within timeoutMs, default 2000 for optional steps).'),
  timeoutMs: z
    .int()
    .positive()
    .optional()
    .describe('How long to wait for the element to be visible (default: timeouts.requestMs, else 10000).'),
  decision: z
    .enum(['approve', 'deny'])
    .optional()
    .describe(
      'Run the step only when the user approves (or denies): mark the consent click with it, so a scenario that ' +
        'denies does not approve.',
    ),
};

const browserStep = z.union([
  z.strictObject({
    fill: selector('fill'),
    value: z.string().describe('The text; ${user.username} and ${user.password} stand for the configured user.'),
    ...stepOptions,
  }),
  z.strictObject({ click: selector('click'), ...stepOptions }),
  z.strictObject({ check: selector('check (a checkbox)'), ...stepOptions }),
  z.strictObject({ waitFor: selector('wait for'), ...stepOptions }),
]);
export type BrowserStep = z.output<typeof browserStep>;

/**
 * Whether walks may share the run's signed-in session (AuthorizeOptions.session "shared"): a speed-up only, which never
 * changes a verdict (a shared walk that fails is done again on a fresh session). false: every walk starts fresh.
 */
const shareSession = z
  .boolean()
  .optional()
  .describe(
    "Whether walks that need no sign-in page share the run's signed-in session (default true: faster). false " +
      'signs in afresh on every walk (the same verdicts, slower): to rule the shared session out.',
  );

/** Whether browser walks load images, fonts and media (default false: a sign-in needs none of them). */
const loadAssets = z
  .boolean()
  .optional()
  .describe(
    'Whether browser walks load images, fonts and media (default false: never requested, which spares the IdP ' +
      'hundreds of requests a run). true: for a login step that needs one (e.g. waits for an image).',
  );

/** The fields of the drivers that walk pages over HTTP (form, and auto until a page needs the browser). */
const httpLogin = {
  shareSession,
  loadAssets,
  usernameField: z.string().min(1).default('username').describe("Name of the login form's username input."),
  passwordField: z.string().min(1).default('password').describe("Name of the login form's password input."),
  userAgent: z
    .string()
    .min(1)
    .regex(/^[\x20-\x7e]+$/, { error: 'must be printable ASCII (an HTTP header value)' })
    .optional()
    .describe(
      'The User-Agent of the pages opened and the forms submitted over HTTP (navigations). Default: a ' +
        "desktop Chromium's. Back-channel requests (token, userinfo…) name the harness instead.",
    ),
};

export const loginSchema = z.discriminatedUnion('driver', [
  z.strictObject({
    // No driver named: auto, the default.
    driver: z.literal('auto').default('auto'),
    ...httpLogin,
    steps: z
      .array(browserStep)
      .optional()
      .describe(
        'The login, step by step, in Chromium (the walk goes on in the browser where the steps would run): fill, ' +
          'click, check or waitFor a selector. Also the browser scenarios use them.',
      ),
  }),
  z.strictObject({
    driver: z.literal('form'),
    ...httpLogin,
    steps: z
      .array(browserStep)
      .optional()
      .describe(
        'Steps for the browser scenarios (browser.*), which log in through Chromium whichever driver the others ' +
          'use: as for the browser driver.',
      ),
  }),
  z.strictObject({
    driver: z.literal('browser'),
    shareSession,
    loadAssets,
    steps: z
      .array(browserStep)
      .optional()
      .describe(
        'The login, step by step, from the first page: fill, click, check or waitFor a selector. Without steps: ' +
          'fill the form that has a password input, then approve consent by its button.',
      ),
  }),
]);
