/** JSON with comments (what `init` writes): comments and trailing commas blanked, positions kept. */
import { ConfigError } from './failures.ts';

/** Walk JSON text outside strings, letting `blank` decide how many characters at i to blank. */
function blankOutsideStrings(text: string, blank: (i: number) => number): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const n = blank(i);
    if (n > 0) {
      out += text.slice(i, i + n).replace(/[^\n]/g, ' ');
      i += n;
    } else {
      out += text[i];
      i++;
    }
  }
  return out;
}

/** Blank out // and /* *\/ comments, then trailing commas, outside strings; positions are kept. */
export function stripJsonComments(text: string): string {
  const noComments = blankOutsideStrings(text, (i) => {
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      return (end < 0 ? text.length : end) - i;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      return (end < 0 ? text.length : end + 2) - i;
    }
    return 0;
  });
  return blankOutsideStrings(noComments, (i) => (noComments[i] === ',' && /^\s*[}\]]/.test(noComments.slice(i + 1, i + 200)) ? 1 : 0));
}

function lineColumn(text: string, position: number): string {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

export function parseJsonc(text: string, source: string): unknown {
  const stripped = stripJsonComments(text);
  try {
    return JSON.parse(stripped);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const pos = /position (\d+)/.exec(message);
    const where = pos ? ` at ${lineColumn(stripped, Number(pos[1]))}` : '';
    throw new ConfigError([`${source}: not valid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, '')}`]);
  }
}

