/**
 * What every report shows to reproduce a failure: the deciding exchange (HttpEvidence.decisive,
 * else the last exchange of a failed or warning result), that request as a curl command with
 * every redacted secret as a `$ENV` name, and the run options that replay the scenario.
 * The evidence is already redacted (harness/redact/redact.ts); this only turns the redaction labels
 * (`[REDACTED:client_secret:1]`) into shell variables (`$CLIENT_SECRET`) and quotes the rest, so
 * target-supplied text is inert in a shell.
 */
import type { HttpEvidence, Report, ScenarioResult } from '../harness/model/results.ts';
import { CONTROL_CHARACTERS } from './controls.ts';

/** The exchange that decided a failed or warning result, and whether the run marked it. */
export function decidingExchange(r: ScenarioResult): { evidence: HttpEvidence; marked: boolean } | undefined {
  const http = r.evidence.filter((e): e is HttpEvidence => e.kind === 'http');
  const marked = http.filter((e) => e.decisive);
  if (marked.length) return { evidence: marked.at(-1)!, marked: true };
  if ((r.status === 'failed' || r.status === 'warning') && http.length)
    return { evidence: http.at(-1)!, marked: false };
  return undefined;
}

const LABEL = /\[REDACTED(?::[\w-]+)*\]/g;

/** `[REDACTED:client_secret:2]` → `CLIENT_SECRET_2`; `[REDACTED]` → `REDACTED`. */
export function envName(label: string): string {
  const [, kind = 'redacted', n] = /^\[REDACTED(?::([\w-]+))?(?::(\d+))?\]$/.exec(label) ?? [];
  const base = kind.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return n && n !== '1' ? `${base}_${n}` : base;
}

/** One shell word for a literal text: bare when safe, else single-quoted, or $'…' with control characters. */
export function shellQuote(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  if (text.search(CONTROL_CHARACTERS) !== -1) {
    return `$'${text
      .replace(/[\\']/g, (c) => `\\${c}`)
      .replace(CONTROL_CHARACTERS, (c) => {
        const code = c.charCodeAt(0);
        return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
      })}'`;
  }
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A shell word where each redaction label becomes "$NAME" and the rest is quoted. */
function shellWord(text: string, env: Set<string>): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(LABEL)) {
    if (m.index > last) out += shellQuote(text.slice(last, m.index));
    const name = envName(m[0]);
    env.add(name);
    out += `"$${name}"`;
    last = m.index + m[0].length;
  }
  if (last < text.length || out === '') out += shellQuote(text.slice(last));
  return out;
}

const SKIPPED_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'accept-encoding',
  'user-agent',
  'transfer-encoding',
]);

export interface Curl {
  /** The command, one option a line (joined with backslash-newline). */
  command: string;
  /** The variables it needs, in order of appearance. */
  env: string[];
}

/** The deciding request as a curl command; secrets only as $ENV names (never a value). */
export function curlCommand(e: HttpEvidence): Curl {
  const env = new Set<string>();
  const lines: string[] = ['curl -i'];
  const method = e.request.method.toUpperCase();
  if (method !== 'GET') lines.push(`-X ${shellQuote(method)}`);
  for (const [name, value] of Object.entries(e.request.headers)) {
    const lower = name.toLowerCase();
    if (SKIPPED_HEADERS.has(lower)) continue;
    const auth = /^(\S+)\s+\[REDACTED:credentials\]$/.exec(value);
    if ((lower === 'authorization' || lower === 'proxy-authorization') && auth) {
      if (/^basic$/i.test(auth[1]!)) {
        env.add('CLIENT_ID');
        env.add('CLIENT_SECRET');
        lines.push(`-u "$CLIENT_ID:$CLIENT_SECRET"`);
      } else {
        env.add('ACCESS_TOKEN');
        lines.push(`-H ${shellQuote(`${name}: ${auth[1]} `)}"$ACCESS_TOKEN"`);
      }
      continue;
    }
    lines.push(`-H ${shellWord(`${name}: ${value}`, env)}`);
  }
  if (e.request.body !== undefined && e.request.body !== '') lines.push(`--data-raw ${shellWord(e.request.body, env)}`);
  lines.push(shellWord(e.request.url, env));
  return { command: lines.join(' \\\n  '), env: [...env] };
}

const ENV_HINTS: Record<string, string> = {
  CLIENT_ID: 'the client_id from the target config',
  CLIENT_SECRET: 'the client secret from the target config',
  ACCESS_TOKEN: 'a fresh access token for the same client',
  REFRESH_TOKEN: 'a fresh refresh token for the same client',
  ID_TOKEN: 'a fresh ID token',
  CODE: 'a fresh authorization code (log in again)',
  CODE_VERIFIER: 'the PKCE code_verifier of that code',
  PASSWORD: "the test user's password",
  COOKIE: 'a session cookie from a fresh login',
  DEVICE_CODE: 'a fresh device_code',
  USER_CODE: 'a fresh user_code',
};

/** What to set each variable to. */
export function envHint(name: string): string {
  const base = name.replace(/_\d+$/, '');
  const n = name.slice(base.length + 1);
  return (
    `${ENV_HINTS[base] ?? `the ${base.toLowerCase().replace(/_/g, ' ')} redacted from the report`}` +
    `${n ? ` (the ${ordinal(Number(n))} such value in this run)` : ''}`
  );
}

function ordinal(n: number): string {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return `${n}${s[(v - 20) % 10] ?? s[v] ?? s[0]}`;
}

/**
 * The options that replay the scenario: the run's seed (a property's own replay line when it
 * has one), the profile, the planted flaws, and the target as it was given.
 */
export function replayCommand(report: Report, r: ScenarioResult): string {
  const property = r.evidence.find((e) => e.kind === 'counterexample');
  const parts = ['idp-conformance run'];
  if (report.target.source === 'issuer-url') parts.push(`--target ${shellQuote(report.target.issuer)}`);
  else if (report.target.source !== 'embedded') parts.push('--target "$TARGET_CONFIG"');
  for (const f of report.plantedFlaws ?? []) parts.push(`--flaw ${shellQuote(f)}`);
  if (report.profile !== 'spec') parts.push(`--profile ${report.profile}`);
  parts.push(
    property?.kind === 'counterexample' ? property.replay : `--seed ${report.seed} --only ${shellQuote(r.id)}`,
  );
  return parts.join(' ');
}

/** Whether a result gets a reproduce block (failed or warning). */
export function reproducible(r: ScenarioResult): boolean {
  return r.status === 'failed' || r.status === 'warning';
}

/** Headers and body of a message as text; used by the text formats. */
export function messageText(
  head: string,
  m: { headers: Record<string, string>; body?: string },
  maxBody = Infinity,
): string {
  const headers = Object.entries(m.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  const body = m.body === undefined || m.body === '' ? '' : `\n\n${clipText(m.body, maxBody)}`;
  return `${head}${headers ? `\n${headers}` : ''}${body}`;
}

export function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** Whether a body is a web page (shown behind a toggle). */
export function isPage(m: { headers: Record<string, string>; body?: string }): boolean {
  const type = Object.entries(m.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  return /html/i.test(type) || /^\s*<(!doctype|html)/i.test(m.body ?? '');
}
