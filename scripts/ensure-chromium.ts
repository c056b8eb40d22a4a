/**
 * Makes sure a Chromium is there for the browser tests and scenarios (npm's `pretest`, and
 * `.ci/run`). Found (CHROMIUM_PATH, /usr/bin/chromium, an installed Chrome): says which. Missing,
 * as root with apt-get: installs Debian's chromium (non-interactively, no stdin). Otherwise: prints
 * the install line and leaves the browser tests to fail with the same reason — they are never
 * skipped under `npm test`. `--require` exits 1 when there is still no Chromium (for CI).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_INSTALL, type ChromiumLookup, findChromium } from '../harness/login/chromium.ts';

export const APT_GET = '/usr/bin/apt-get';

export interface EnsureOptions {
  env: NodeJS.ProcessEnv;
  find(env: NodeJS.ProcessEnv): ChromiumLookup;
  isRoot: boolean;
  hasAptGet: boolean;
  /** Runs a command to completion; true when it exits 0. */
  run(command: string, args: string[]): boolean;
  say(message: string): void;
}

/** Finds Chromium, installing Debian's package when that is possible; returns what was found in the end. */
export function ensureChromium(o: EnsureOptions): ChromiumLookup {
  let found = o.find(o.env);
  // An explicit CHROMIUM_PATH that is wrong is the user's to fix: installing would not help it.
  if ('missing' in found && !o.env.CHROMIUM_PATH && o.isRoot && o.hasAptGet) {
    o.say(`${found.missing}; installing Debian's chromium as root`);
    if (o.run(APT_GET, ['update']) && o.run(APT_GET, ['install', '-y', 'chromium'])) found = o.find(o.env);
  }
  if ('path' in found) {
    o.say(`Chromium at ${found.path}`);
  } else {
    o.say(`${found.missing}.`);
    o.say(
      `The browser tests need it and fail until it is there: as root, ${CHROMIUM_INSTALL} (or with sudo), or set ` +
        `CHROMIUM_PATH to a Chromium or Chrome.`,
    );
  }
  return found;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const say = (message: string) => console.error(`ensure-chromium: ${message}`);
  const found = ensureChromium({
    env: process.env,
    find: findChromium,
    isRoot: process.getuid?.() === 0,
    hasAptGet: existsSync(APT_GET),
    say,
    run(command, args) {
      say(`running ${command} ${args.join(' ')}`);
      const result = spawnSync(command, args, {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
      if (result.error) say(`${command} did not run: ${result.error.message}`);
      return result.status === 0;
    },
  });
  if ('missing' in found && process.argv.includes('--require')) process.exit(1);
}
