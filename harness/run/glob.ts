/** Globs: on scenario ids (`--only pkce.*`) and on files (`--scenarios 'checks/**\/*.ts'`). */
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/** `*` any run of characters (within a path segment when `segments`), `**` any, `?` one, `{a,b}`. */
export function globToRegExp(glob: string, segments = false): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += segments ? '[^/]*' : '.*';
    else if (c === '?') re += segments ? '[^/]' : '.';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end < 0) re += '\\{';
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(',')
          .map((p) => p.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, segments ? '[^/]*' : '.*'))
          .join('|')})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Split comma-separated lists (commas inside {a,b} stay) and repeated options into one list. */
export function patternList(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => v.split(/,(?![^{]*\})/))
    .map((v) => v.trim())
    .filter(Boolean);
}

export function idMatcher(patterns: readonly string[]): (id: string) => boolean {
  const res = patterns.map((p) => globToRegExp(p));
  return (id) => res.some((re) => re.test(id));
}

const isGlob = (s: string) => /[*?{]/.test(s);

/** Files matching a glob (absolute or relative to cwd); a plain path is returned as is. */
export async function expandFileGlob(pattern: string, cwd = process.cwd()): Promise<string[]> {
  const abs = path.resolve(cwd, pattern).split(path.sep).join('/');
  if (!isGlob(abs)) return [path.resolve(abs)];
  const parts = abs.split('/');
  const firstGlob = parts.findIndex(isGlob);
  const root = parts.slice(0, firstGlob).join('/') || '/';
  const re = globToRegExp(abs, true);
  const deep = parts.slice(firstGlob).some((p) => p === '**') || parts.length - firstGlob > 1;
  const out: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = `${dir === '/' ? '' : dir}/${e.name}`;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && !e.name.startsWith('.') && (deep || depth === 0) && depth < 20)
          await walk(full, depth + 1);
      } else if (re.test(full)) out.push(path.resolve(full));
    }
  };
  await walk(root, 0);
  return out.sort();
}
