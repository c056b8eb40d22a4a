/**
 * The whole catalog's wall time with each login driver, against the embedded reference or oidc-provider (the interop
 * IdP the tests use): `npx tsx bench/drivers.ts [reference|oidc-provider]`. `npm run bench -- --only browser` runs
 * the reference's as part of the bench.
 */
import { type DriverIdp, browserDriverWallTime, renderBrowserBench } from './browser.ts';

const which = (process.argv[2] ?? 'reference') as DriverIdp;
if (which !== 'reference' && which !== 'oidc-provider')
  throw new Error('usage: bench/drivers.ts [reference|oidc-provider]');
console.log(renderBrowserBench(await browserDriverWallTime(which)));
