/**
 * Target-supplied text is data (docs/security.md): never a terminal control sequence, a fake line, a CI
 * workflow command or markup. Reporters pass every string that may quote the target (messages,
 * skip reasons, findings, counterexamples, the issuer) through these before writing it.
 */
import { CONTROL_CHARACTERS } from './controls.ts';

function visible(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One inert line for a terminal or a CI log: control characters and line breaks shown as escapes
 * (so no ANSI sequence runs and no fake line starts), and a leading `::` (a GitHub Actions
 * workflow command such as ::add-mask:: or ::warning::, honoured after leading spaces) broken up.
 */
export function consoleText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, visible).replace(/^(\s*):(?=:)/, '$1: ');
}

/** Text for a Markdown document (a CI step summary): one implementation, in reports/markdown.ts. */
export { markdownText } from './markdown.ts';
