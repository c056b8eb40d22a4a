/** The command line: dispatches `idp-conformance <command>` to its module. */
import { PACKAGE } from '../harness/run/package-info.ts';
import { UsageError, type Command } from './command.ts';
import { cimdDocumentsCommand } from './cimd-documents.ts';
import { initCommand } from './init.ts';
import { listCommand } from './list.ts';
import { mergeReportsCommand } from './merge-reports.ts';
import { runCommand } from './run.ts';
import { serveCommand } from './serve.ts';

const COMMANDS: Record<string, Command> = {
  run: runCommand,
  list: listCommand,
  init: initCommand,
  serve: serveCommand,
  'merge-reports': mergeReportsCommand,
  'cimd-documents': cimdDocumentsCommand,
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `Usage: idp-conformance <command> [options]

Commands:
${lines.join('\n')}

Run "idp-conformance <command> --help" for a command's options; --version prints the version.`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === 'version') {
    console.log(PACKAGE.version);
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? console.error : console.log)(usage());
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(`idp-conformance: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`idp-conformance ${name}: ${err.message}\n\n${command.usage}`);
    return 2;
  }
}
