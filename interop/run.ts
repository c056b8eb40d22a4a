/**
 * `npm run interop [-- --idp NAME]... [--update] [--only GLOB]... [--fresh-sessions] [--with-steps]`: for each IdP,
 * install its Debian packages (as root), start it on a free loopback port, run the whole catalog against it with its
 * target config's login driver, write the reports to interop/reports/<idp>/, stop it, and compare every verdict with
 * interop/expectations/<idp>.json. `--fresh-sessions`: no walk shares the run's signed-in session
 * (login.shareSession false); `--with-steps`: the module's signInSteps as login.steps; both must give the same
 * verdicts. `--update` rewrites the expectations' statuses from the run instead (new and changed ones marked TODO
 * for a person to classify; with `--only`, only the selected scenarios' entries: `--update --only ID` records a new
 * scenario and changes nothing else). Exit 1 when a verdict differs from the expectations (or an IdP could not be
 * run).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  IDPS,
  REPORTS_DIR,
  compare,
  describeDifference,
  loadIdp,
  moduleFile,
  readExpectations,
  recordCommand,
  runIdp,
  unlisted,
  updatedExpectations,
  writeExpectations,
} from './matrix.ts';
import { messageOf } from './support.ts';

const { values } = parseArgs({
  options: {
    idp: { type: 'string', multiple: true },
    update: { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
    verbose: { type: 'boolean', default: false },
    driver: { type: 'string' },
    'fresh-sessions': { type: 'boolean', default: false },
    'with-steps': { type: 'boolean', default: false },
  },
});
const driver = values.driver;
if (driver !== undefined && driver !== 'auto' && driver !== 'form' && driver !== 'browser') {
  console.error(`--driver: "auto", "form" or "browser", not ${JSON.stringify(driver)}`);
  process.exit(2);
}

const names = values.idp?.length ? values.idp : IDPS.map((i) => i.name);
const unknown = names.filter((n) => !IDPS.some((i) => i.name === n));
if (unknown.length) {
  console.error(`--idp: unknown ${unknown.join(', ')}; known: ${IDPS.map((i) => i.name).join(', ')}`);
  process.exit(2);
}
const started = performance.now();
let problems = 0;
const rows: string[] = [];

for (const name of names) {
  const idp = await loadIdp(name);
  if (!idp) {
    const entry = IDPS.find((i) => i.name === name)!;
    const where = entry.dirs.map((d) => path.relative(process.cwd(), moduleFile(entry, d))).join(' or ');
    console.log(`${name}: skipped — no module at ${where} (not merged yet?)`);
    continue;
  }
  console.log(`${name}: installing`);
  try {
    await idp.install();
  } catch (error) {
    console.error(`${name}: ${messageOf(error)}`);
    problems++;
    continue;
  }
  const reportDir = path.join(REPORTS_DIR, name);
  console.log(`${name}: running the catalog (reports in ${path.relative(process.cwd(), reportDir)})`);
  let run;
  try {
    run = await runIdp(idp, {
      reportDir,
      ...(values.only ? { only: values.only } : {}),
      ...(driver ? { driver } : {}),
      ...(values['fresh-sessions'] ? { shareSession: false } : {}),
      ...(values['with-steps'] ? { withSteps: true } : {}),
      ...(values.verbose ? { log: (l: string) => console.log(l) } : {}),
    });
  } catch (error) {
    console.error(`${name}: could not run: ${messageOf(error)}`);
    problems++;
    continue;
  }
  const { report, wallMs } = run;
  const s = report.summary;
  const old = await readExpectations(name);
  const expectations = values.update ? updatedExpectations(name, old, report, { partial: !!values.only }) : old;
  if (values.update) await writeExpectations(expectations!);
  const harness = Object.values(expectations?.scenarios ?? {}).filter((e) => e.reason.startsWith('harness:')).length;
  const line =
    `${name} (${run.driver}): ${s.passed} passed, ${s.failed} failed, ${s.warnings} warnings, ${s.skipped} ` +
    `skipped, ${s.errors} errors; ${harness} harness: entries; ${(wallMs / 1000).toFixed(0)} s`;
  rows.push(line);
  console.log(line);
  if (values.update) {
    console.log(
      `${name}: wrote interop/expectations/${name}.json${values.only ? ' (only the selected scenarios changed)' : ''}`,
    );
    continue;
  }
  if (!old) {
    console.error(`${name}: no interop/expectations/${name}.json; run npm run interop -- --idp ${name} --update`);
    problems++;
    continue;
  }
  const diffs = compare(old, report).filter((d) => !values.only || d.actual);
  for (const d of diffs) console.error(`  ${describeDifference(d)}`);
  const missing = unlisted(diffs);
  if (missing.length) console.error(`  record the unlisted ones (then classify them): ${recordCommand(name, missing)}`);
  if (diffs.length) problems++;
}

console.log(`\n${rows.join('\n')}\ninterop: ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exitCode = problems ? 1 : 0;
