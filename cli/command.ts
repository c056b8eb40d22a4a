/** The shape of a subcommand and the argument parsing every subcommand shares. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage } from '../protocol/guards.ts';

export interface Command {
  /** One line for the command list. */
  summary: string;
  /** The full `--help` text. */
  usage: string;
  /** Resolves to the exit code (docs/reports.md: 0 ok, 1 failed, 2 usage or config error, 3 unreachable). */
  run(argv: string[]): Promise<number>;
}

/** A mistake on the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

type Strict<O extends Options> = { args: string[]; options: O; strict: true; allowPositionals: false };
type WithPositionals<O extends Options> = { args: string[]; options: O; strict: true; allowPositionals: true };

/** node:util parseArgs, strict, with parse failures turned into UsageErrors. */
export function parseOptions<O extends Options>(
  argv: string[],
  options: O,
): ReturnType<typeof parseArgs<Strict<O>>>['values'] {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
}

/** parseOptions for a command that also takes positional arguments (files, folders). */
export function parseCommandLine<O extends Options>(
  argv: string[],
  options: O,
): Pick<ReturnType<typeof parseArgs<WithPositionals<O>>>, 'values' | 'positionals'> {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
    return { values, positionals };
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
}
