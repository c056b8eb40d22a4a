/** JSON with comments and trailing commas (what `init` writes), read by jsonc-parser. */
import { type ParseError, parse, printParseErrorCode } from 'jsonc-parser';
import { ConfigError } from '../model/failures.ts';

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/**
 * Errors that are worth a sentence: jsonc-parser's codes read as words ("PropertyNameExpected" → "property name
 * expected").
 */
function describe(error: ParseError): string {
  return printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

export function parseJsonc(text: string, source: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (first)
    throw new ConfigError([`${source}: not valid JSON at ${lineColumn(text, first.offset)}: ${describe(first)}`]);
  return value;
}
