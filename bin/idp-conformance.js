#!/usr/bin/env node
// The installed command: registers tsx so the TypeScript sources run as they are, then
// hands the arguments to the command-line dispatcher.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
