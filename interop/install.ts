/**
 * `tsx interop/install.ts [--require]`: installs the Debian packages of every interop IdP module
 * in this checkout (apt-get, idempotent; needs root), and the npm products' pinned packages into their
 * own folders (npm ci, interop/npm-install.ts). Without --require a failure is printed and
 * the interop tests for that IdP skip; with it (CI) the command fails.
 * apt keeps the downloaded .debs in /var/cache/apt/archives: never cleaned here.
 */
import { IDPS, loadIdp } from './matrix.ts';
import { messageOf } from './support.ts';

const strict = process.argv.includes('--require');
let failed = false;
for (const { name } of IDPS) {
  const idp = await loadIdp(name);
  if (!idp) {
    console.log(`interop: ${name}: no module in this checkout, nothing to install`);
    continue;
  }
  try {
    const started = performance.now();
    await idp.install();
    console.log(`interop: ${name}: installed (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  } catch (error) {
    console.error(`interop: ${name}: ${messageOf(error)}`);
    failed = true;
  }
}
process.exitCode = failed && strict ? 1 : 0;
