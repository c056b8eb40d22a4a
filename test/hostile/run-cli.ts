/**
 * Runs `idp-conformance run` against a hostile IdP in a child process (so a crash, a heap
 * exhaustion or a blocked event loop shows as what it is), and collects what a CI job would see:
 * the exit code, stdout, stderr, every report file, and the child's peak RSS.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SECRETS, type HostileIdp } from './hostile-idp.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The child's heap limit: a run that needs more than this is not bounded. */
export const HEAP_LIMIT_MB = 512;
/** Peak RSS a hostile run may reach (heap limit plus Chromium-less overhead, generous). */
export const RSS_LIMIT_MB = 900;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Report files by name (screenshots as their names only). */
  files: Record<string, string>;
  screenshots: string[];
  rssMb: number | undefined;
  wallMs: number;
  /** Everything a reader could see: console, stderr and every report file. */
  everything: string;
}

export async function runCli(
  idp: HostileIdp,
  options: { only: string[]; config?: Record<string, unknown>; rawConfig?: Record<string, unknown>; args?: string[] },
): Promise<CliRun> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hostile-'));
  try {
    const cfg = path.join(dir, 'target.json');
    await writeFile(cfg, JSON.stringify(options.rawConfig ?? idp.config(options.config)));
    const rssFile = path.join(dir, 'rss');
    const report = path.join(dir, 'report');
    const argv = [
      `--max-old-space-size=${HEAP_LIMIT_MB}`,
      '--import',
      path.join(ROOT, 'test/hostile/rss.mjs'),
      path.join(ROOT, 'bin/idp-conformance.js'),
      'run',
      '--target',
      cfg,
      '--report',
      report,
      '--seed',
      '1',
      '--concurrency',
      '2',
      ...options.only.flatMap((o) => ['--only', o]),
      ...(options.args ?? []),
    ];
    const started = performance.now();
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      env: {
        ...process.env,
        NO_COLOR: '1',
        HOSTILE_RSS_FILE: rssFile,
        // An https hostile IdP: its test certificate is trusted by Node's own setting, and by Chromium through a
        // wrapper that trusts that one key (test/hostile/tls.ts); the product is not changed.
        ...(idp.caFile ? { NODE_EXTRA_CA_CERTS: idp.caFile } : {}),
        ...(idp.chromium ? { CHROMIUM_PATH: idp.chromium() } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('close', (c, s) => resolve([c, s])),
    );
    const wallMs = performance.now() - started;
    const files: Record<string, string> = {};
    const screenshots: string[] = [];
    for (const name of await readdir(report).catch(() => [] as string[])) {
      if (name === 'screenshots') screenshots.push(...(await readdir(path.join(report, name))));
      else files[name] = await readFile(path.join(report, name), 'utf8');
    }
    const rss = await readFile(rssFile, 'utf8').catch(() => undefined);
    const rssMb = rss === undefined ? undefined : Number(rss) / 1024;
    return {
      code,
      signal,
      stdout,
      stderr,
      files,
      screenshots,
      rssMb,
      wallMs,
      everything: [stdout, stderr, ...Object.values(files)].join('\n'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The config's secrets and every long token the IdP issued that appear in what a reader sees. */
export function leaks(run: CliRun, idp: HostileIdp): string[] {
  const secrets = [...Object.values(SECRETS), ...idp.issued.filter((t) => t.length >= 8)];
  const found: string[] = [];
  for (const s of secrets) {
    // A 40 KiB token may appear cut: any 64-character piece of it counts.
    const probes = s.length > 128 ? [s.slice(0, 64), s.slice(s.length / 2, s.length / 2 + 64), s.slice(-64)] : [s];
    const encoded = probes.flatMap((p) => [p, encodeURIComponent(p), Buffer.from(p).toString('base64')]);
    if (encoded.some((p) => run.everything.includes(p))) found.push(`${s.slice(0, 12)}…(${s.length} chars)`);
  }
  const basic = Buffer.from(`machine:${SECRETS.machine}`).toString('base64');
  if (run.everything.includes(basic)) found.push('Basic credentials');
  return found;
}

/** Report files a run is asked for with --format json,junit,html,md,sarif. */
export const ALL_FORMATS = ['--format', 'json,junit,html,md,sarif'];
export const ALL_REPORTS = ['junit.xml', 'report.html', 'report.json', 'report.md', 'report.sarif'];

/**
 * What decoding finds (issue 29 item 1): every run of base64url or base64 characters in what a reader sees is decoded
 * (and what it decodes to, once more: a token inside a request object inside a URL), and every JWT's signature is
 * compared with those of the JWTs the IdP issued (a forged copy that keeps it gives the token back). Returns the
 * secrets and tokens found that way.
 */
export function decodedLeaks(run: CliRun, idp: HostileIdp): string[] {
  const secrets = [...Object.values(SECRETS), ...idp.issued.filter((t) => t.length >= 8)];
  const signatures = new Set(
    idp.issued
      .filter((t) => t.split('.').length === 3)
      .map((t) => t.split('.')[2]!)
      .filter((s) => s.length >= 16),
  );
  const found = new Set<string>();
  const name = (s: string) => `${s.slice(0, 12)}…(${s.length} chars)`;
  const inspect = (text: string, depth: number): void => {
    for (const s of secrets) if (text.includes(s)) found.add(`${name(s)}${depth ? ' (decoded)' : ''}`);
    if (text.includes(`machine:${SECRETS.machine}`)) found.add('Basic credentials (decoded)');
    // Anchored at the start of a run (the lookbehind): a long run without dots is not tried at each of its characters.
    for (const jwt of text.match(/(?<![\w-])[\w-]{8,}\.[\w-]{8,}\.[\w-]{16,}/g) ?? []) {
      const signature = jwt.split('.')[2]!;
      if (signatures.has(signature)) found.add(`the signature of an issued JWT (${name(signature)})`);
    }
    if (depth >= 2) return;
    const runs = text.match(/[A-Za-z0-9_-]{12,}|[A-Za-z0-9+/]{12,}={0,2}/g) ?? [];
    for (const r of new Set(runs)) {
      for (const decoded of [Buffer.from(r, 'base64url'), Buffer.from(r, 'base64')]) {
        const t = decoded.toString('latin1');
        if (/[\x20-\x7e]{8,}/.test(t)) inspect(t, depth + 1);
      }
    }
  };
  inspect(run.everything, 0);
  return [...found];
}

export interface ReportJson {
  summary: { failed: number; passed: number; errors: number; warnings: number; skipped: number };
  results: {
    id: string;
    status: string;
    message?: string;
    severity: string;
    level?: string;
    area: string;
    durationMs: number;
    evidence: unknown[];
  }[];
  [key: string]: unknown;
}

export function reportOf(run: CliRun): ReportJson {
  const text = run.files['report.json'];
  if (!text) throw new Error(`no report.json; exit ${run.code}, stderr: ${run.stderr.slice(0, 2000)}`);
  return JSON.parse(text) as ReportJson;
}

export function resultOf(run: CliRun, id: string): ReportJson['results'][number] {
  const r = reportOf(run).results.find((x) => x.id === id);
  if (!r) throw new Error(`no result for ${id}`);
  return r;
}
