#!/usr/bin/env node
// The installed command (package.json "bin", built to dist/cli/bin.js): hands the arguments to
// the command-line dispatcher. In the repository, bin/idp-conformance.js runs the sources instead.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
