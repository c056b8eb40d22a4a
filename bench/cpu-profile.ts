/**
 * Summarises a V8 CPU profile (node --cpu-prof; `npm run bench -- --cpu-prof DIR` writes one per
 * server process): self time by function and by file, heaviest first.
 *
 *   npx tsx bench/cpu-profile.ts DIR/server-RS256.cpuprofile [--top N]
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  name: string;
  selfMs: number;
  share: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function where(url: string): string {
  if (!url) return '(native)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  return path.startsWith(ROOT) ? relative(ROOT, path) : path;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${where(url)}${url ? `:${lineNumber + 1}` : ''}`;
}

/**
 * Self time per function (name and file:line) and per file, and inclusive time per function
 * (the samples with it anywhere on the stack), all heaviest first. `selfMs` holds the time.
 */
export function summarizeProfile(profile: CpuProfile): {
  total: number;
  functions: ProfileLine[];
  files: ProfileLine[];
  inclusive: ProfileLine[];
} {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    const file = where(node.callFrame.url);
    const fn = frameName(node);
    functions.set(fn, (functions.get(fn) ?? 0) + us);
    files.set(file, (files.get(file) ?? 0) + us);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) onStack.add(frameName(byId.get(at)!));
    for (const name of onStack) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    total += us;
  }
  const lines = (m: Map<string, number>) =>
    [...m].map(([name, us]) => ({ name, selfMs: us / 1000, share: us / total })).sort((a, b) => b.selfMs - a.selfMs);
  return { total: total / 1000, functions: lines(functions), files: lines(files), inclusive: lines(inclusive) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/cpu-profile.ts FILE.cpuprofile [--top N]');
    process.exit(2);
  }
  const top = Number(rest[rest.indexOf('--top') + 1] ?? 25) || 25;
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const show = (title: string, list: ProfileLine[]) => {
    console.log(`\n${title}`);
    for (const l of list.slice(0, top))
      console.log(`${(l.share * 100).toFixed(1).padStart(5)} %  ${l.selfMs.toFixed(0).padStart(7)} ms  ${l.name}`);
  };
  console.log(`${file}: ${summary.total.toFixed(0)} ms of samples (main thread)`);
  show('self time by function', summary.functions);
  show('self time by file', summary.files);
  show('inclusive time by function', summary.inclusive);
}
