/**
 * report.md, for CI step summaries: planted flaws and the baseline comparison first, the counts
 * with the security/interop split, then every failure, warning and error in reading order with
 * its severity, level, kind, requirement links, replay options, the deciding request as curl and
 * its screenshots linked. No raw HTML: every text from a result goes through `markdownText`, and
 * commands sit in fenced code blocks. It stays under GitHub's 1 MiB step-summary limit: past
 * MAX_MARKDOWN_BYTES the results that do not fit are left out and a note says how many.
 */
import type { Report, ScenarioResult, ScreenshotEvidence } from '../harness/model/results.ts';
import {
  baselineLines,
  groupCounts,
  groupOf,
  kindLabel,
  orderResults,
  plantedFlawsLine,
  resultDetail,
  resultLabel,
  kindLine,
  summaryLine,
  visibleControls,
} from './format.ts';
import { clipText, curlCommand, decidingExchange, envHint, replayCommand } from './reproduce.ts';

/** The longest curl command or counterexample shown in full; longer ones are cut with a note. */
const MAX_BLOCK = 8000;

/** GitHub's limit for one step summary is 1 MiB; stay well clear of it. */
export const MAX_MARKDOWN_BYTES = 1024 * 1024 - 16 * 1024;

/**
 * Text (from the target or a result) as inline Markdown that renders as exactly that text: no
 * HTML, no links, no emphasis, no table break-out. Line breaks and tabs become spaces, other
 * controls `⟨U+XXXX⟩` (visibleControls). Markdown's own escape for every ASCII punctuation character that can start
 * markup.
 */
export function markdownText(text: string): string {
  return (
    visibleControls(text.replace(/\r\n?|\n|\u2028|\u2029/g, ' '))
      .replace(/\t/g, ' ')
      .replace(/[\\`*_{}[\]()#+\-.!|~:@$]/g, (c) => `\\${c}`)
      // Entities, not backslashes, for the characters that open HTML: no renderer makes a tag of them.
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
  );
}

/** A fenced code block whose fence is longer than any backtick run in the text. */
export function codeBlock(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${visibleControls(text)}\n${fence}`;
}

/** A link destination: percent-encoded so it cannot close the link or start markup. */
function linkTarget(url: string): string {
  return encodeURI(url).replace(
    /[()<>[\]`'"]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

const link = (text: string, url: string) => `[${markdownText(text)}](${linkTarget(url)})`;

function requirementLinks(r: ScenarioResult): string {
  return r.requirements
    .filter((q) => q.applies)
    .map((q) => (q.url ? link(`${q.level} ${q.label}`, q.url) : markdownText(`${q.level} ${q.label}`)))
    .join(', ');
}

function resultBlock(report: Report, r: ScenarioResult): string {
  const kind = kindLabel(r);
  const out = [
    `### ${markdownText(resultLabel(r))} ${markdownText(r.id)}${kind ? ` · ${kind}` : ''} · ` +
      `severity ${r.severity}${r.level ? ` · ${r.level}` : ''}`,
    '',
    `${markdownText(r.title)}`,
    '',
  ];
  const detail = resultDetail(r);
  if (detail) out.push(`**${markdownText(detail)}**`, '');
  for (const f of r.findings ?? [])
    if (f.message !== r.message) out.push(`- also ${f.status}: ${markdownText(f.message)}`);
  if (r.findings?.some((f) => f.message !== r.message)) out.push('');
  const reqs = requirementLinks(r);
  if (reqs) out.push(`Requirements: ${reqs}`, '');
  if (r.status === 'failed' || r.status === 'warning') {
    out.push('Replay:', '', codeBlock(replayCommand(report, r), 'sh'), '');
    const deciding = decidingExchange(r)?.evidence;
    if (deciding) {
      const curl = curlCommand(deciding);
      const status = deciding.response
        ? `HTTP ${deciding.response.status}`
        : `no response (${deciding.error ?? 'unknown'})`;
      const location = deciding.response?.headers.location;
      out.push(
        `The deciding request ` +
          `(answered ${markdownText(status)}${location ? `, Location ${markdownText(location)}` : ''}):`,
        '',
      );
      if (curl.env.length)
        out.push(
          `Set first: ${curl.env.map((n) => `${markdownText(n)} (${markdownText(envHint(n))})`).join('; ')}.`,
          '',
        );
      out.push(codeBlock(clipText(curl.command, MAX_BLOCK), 'sh'), '');
    }
  }
  const shots = r.evidence.filter((e): e is ScreenshotEvidence => e.kind === 'screenshot');
  if (shots.length) out.push(`Screenshots: ${shots.map((s) => link(s.label ?? 'screenshot', s.path)).join(', ')}`, '');
  for (const e of r.evidence)
    if (e.kind === 'counterexample')
      out.push(
        `Counterexample (property seed ${e.seed}, ${e.runs} run${e.runs === 1 ? '' : 's'}):`,
        '',
        codeBlock(clipText(e.value, MAX_BLOCK)),
        '',
      );
  return out.join('\n');
}

export function renderMarkdown(report: Report, maxBytes = MAX_MARKDOWN_BYTES): string {
  const s = report.summary;
  const c = groupCounts(report.results);
  const head: string[] = [`## OAuth/OIDC conformance: ${markdownText(report.target.issuer)}`, ''];
  const flaws = plantedFlawsLine(report);
  if (flaws) head.push(`> **Warning:** ${markdownText(flaws)}`, '');
  const base = baselineLines(report);
  if (base.length) {
    head.push(`**Baseline:** ${markdownText(base[0]!)}`, '');
    for (const line of base.slice(1)) head.push(`- ${markdownText(line)}`);
    head.push('');
  }
  head.push(
    '| security failures | interop failures | unclassified failures | warnings | errors | expected failures | ' +
      'passed | skipped |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${c.security} | ${c.interop} | ${c.unclassified} | ${c.warning} | ${c.error} | ${c.expected} | ${c.passed} ` +
      `| ${c.skipped} |`,
    '',
    markdownText(summaryLine(report)),
    '',
  );
  const kind = kindLine(report);
  if (kind) head.push(markdownText(kind), '');
  for (const n of report.notices ?? []) head.push(`- note: ${markdownText(n)}`);
  if (report.notices?.length) head.push('');
  const ordered = orderResults(report.results);
  const notable = ordered.filter((r) => r.status === 'failed' || r.status === 'warning' || r.status === 'error');
  const blocks: string[] = [];
  if (notable.length) {
    blocks.push(
      '| | scenario | kind | severity | what happened |\n| --- | --- | --- | --- | --- |\n' +
        notable
          .map(
            (r) =>
              `| ${markdownText(resultLabel(r))} | ${markdownText(r.id)} | ${groupOf(r)} | ${r.severity} ` +
              `| ${markdownText(clipText(resultDetail(r), 300))} |`,
          )
          .join('\n') +
        '\n',
    );
    for (const r of notable) blocks.push(resultBlock(report, r));
  } else {
    blocks.push(`No failures, warnings or errors (${s.total} scenario${s.total === 1 ? '' : 's'}).\n`);
  }
  const unexpected = ordered.filter((r) => r.unexpectedPass);
  if (unexpected.length)
    blocks.push(
      `Passed although listed in expectedFailures (remove them from the ` +
        `list): ${unexpected.map((r) => markdownText(r.id)).join(', ')}\n`,
    );
  const skipped = ordered.filter((r) => r.status === 'skipped');
  if (skipped.length)
    blocks.push(
      `**${skipped.length} ` +
        `skipped:**\n\n${skipped
          .map((r) => `- ${markdownText(r.id)}: ` + `${markdownText(r.skipReason ?? '')}`)
          .join('\n')}\n`,
    );

  const bytes = (t: string) => Buffer.byteLength(t, 'utf8');
  let out = `${head.join('\n')}\n`;
  const reserve = 512; // room for the note
  for (let i = 0; i < blocks.length; i++) {
    const next = `${blocks[i]}\n`;
    if (bytes(out) + bytes(next) + reserve > maxBytes) {
      const left = blocks.length - i;
      return (
        `${out}> **Note:** cut here to stay under GitHub's 1 MiB step-summary limit: ${left} more ` +
        `section${left === 1 ? '' : 's'} left out. The full report is in report.html and report.json.\n`
      );
    }
    out += next;
  }
  return out;
}
