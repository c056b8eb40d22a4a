/**
 * report.html: one page with everything inline (no external resources), written for a reviewer:
 * planted flaws and the baseline comparison at the top, count cards that filter when clicked,
 * then the results in reading order (security failures, interop failures, unclassified failures,
 * warnings, errors, expected failures, passed, skipped; reports/format.ts). A failure shows its
 * reproduce block (the deciding request as curl, secrets as $ENV names, and the replay options)
 * and its deciding exchange open; the other exchanges are folded and page bodies sit behind a
 * toggle. Every value is escaped; the data lives in the markup, not in a script.
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  CounterexampleEvidence,
  Evidence,
  HttpEvidence,
  Report,
  ScenarioResult,
  ScreenshotEvidence,
} from '../harness/model/results.ts';
import {
  GROUPS,
  GROUP_LABEL,
  type Group,
  baselineLines,
  groupCounts,
  groupOf,
  kindLabel,
  orderResults,
  plantedFlawsLine,
  resultDetail,
  resultLabel,
  splitLine,
  kindLine,
  summaryLine,
  visibleControls,
} from './format.ts';
import { curlCommand, decidingExchange, envHint, isPage, replayCommand, reproducible } from './reproduce.ts';

/** HTML-escapes a text, its invisible controls made visible first (reports/format.ts visibleControls). */
export function htmlEscape(text: string): string {
  return visibleControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
const h = htmlEscape;

const CSS =
  `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d232a;color:#fff;padding:10px 24px}header h1{margin:0 0 2px;font-size:18px}
header p{margin:0;color:#c9d1d9;font-size:13px}main{padding:8px 24px;max-width:1200px}
.flaws{background:#fff1c2;border:2px solid #bf8700;border-radius:6px;padding:6px 12px;margin:8px 0}
.baseline{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:6px 12px;margin:8px 0}.baseline ` +
  `ul{margin:2px 0;padding-left:20px}
.cards{display:flex;gap:6px;flex-wrap:wrap;margin:8px 0}
.card{font:13px/1.3 inherit;font-family:inherit;cursor:pointer;background:#fff;border:1px solid ` +
  `#d0d7de;border-radius:6px;padding:3px 9px;border-left:5px solid #999;text-align:left}
.card b{font-size:16px;margin-right:5px}.card[aria-pressed=true]{outline:2px solid ` +
  `#0969da;background:#ddf4ff}.card.zero{opacity:.55}
.bar{display:flex;gap:16px;flex-wrap:wrap;align-items:center;font-size:13px;color:#57606a;margin:4px 0}
nav ul{columns:3;list-style:none;padding:0;font-size:13px}nav li{margin:2px 0}
.result{background:#fff;border-radius:6px;padding:8px 14px;margin:8px 0;border-left:5px solid ` +
  `#999;overflow-wrap:anywhere}
.result.compact{padding:3px 14px;margin:3px 0}.result.compact details{margin:0}.result.compact ` +
  `.title{margin-left:8px;color:#444}
.note{white-space:pre-line}
.result h2{font-size:15px;margin:0 0 2px}.result .title{color:#444;margin:0 0 4px}
.badge{display:inline-block;font-size:11px;font-weight:700;padding:1px ` +
  `6px;border-radius:3px;color:#fff;margin-right:6px;vertical-align:middle}
.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:3px;border:1px solid ` +
  `#d0d7de;margin-left:6px;vertical-align:middle;font-weight:600}
.k-security{background:#ffebe9;border-color:#cf222e;color:#a40e26}.k-interop{background:#fff8c5;` +
  `border-color:#bf8700;color:#7d4e00}
.g-security{border-left-color:#a40e26}.g-interop,.g-unclassified{border-left-color:#cf222e}` +
  `.g-warning{border-left-color:#bf8700}.g-error{border-left-color:#8250df}
.g-expected{border-left-color:#0969da}.g-passed{border-left-color:#1a7f37}.g-skipped{border-left-color:#8c959f}` +
  `.g-all{border-left-color:#1d232a}
.b-passed{background:#1a7f37}.b-failed{background:#cf222e}.b-warning{background:#bf8700}` +
  `.b-skipped{background:#8c959f}.b-error{background:#8250df}.b-expected{background:#0969da}
.message{margin:4px 0;font-weight:600}.meta{color:#57606a;font-size:12px}
pre{background:#f0f2f4;padding:8px;overflow:auto;max-height:360px;white-space:pre-wrap;word-break:break-all;` +
  `font-size:12px;margin:4px 0}
details{margin:4px 0}summary{cursor:pointer}.hidden{display:none}
.reproduce{border:1px solid #d0d7de;border-radius:6px;padding:4px 10px;margin:6px 0;background:#f6f8fa}.reproduce ` +
  `h3{font-size:13px;margin:2px 0}
.reproduce pre{background:#1d232a;color:#e6edf3}
.exchange.decisive{border:2px solid #cf222e;border-radius:6px;padding:2px ` +
  `8px}.exchange.decisive>summary{font-weight:600}
mark.decisive{background:#cf222e;color:#fff;padding:0 4px;border-radius:3px;font-size:11px;margin-right:4px}
.counterexample{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:6px ` +
  `0;background:#fffbe6}.counterexample pre{margin:4px 0}
figure.shot{display:inline-block;margin:6px 10px 6px 0;vertical-align:top;max-width:260px}
figure.shot img{display:block;width:260px;height:auto;border:1px solid #d0d7de;border-radius:4px;background:#fff}
figure.shot figcaption{font-size:12px;color:#57606a;margin-top:2px}
`;

const SCRIPT =
  `
(function () {
  var cards = document.querySelectorAll('button[data-group]');
  var area = document.getElementById('filter-area');
  var group = 'all';
  function apply() {
    var chosen = area.value;
    var shown = 0;
    document.querySelectorAll('.result').forEach(function (el) {
      var visible = (group === 'all' || el.getAttribute('data-group') === group) && (chosen === '' || ` +
  `el.getAttribute('data-area') === chosen);
      el.classList.toggle('hidden', !visible);
      var link = document.querySelector('nav a[href="#' + el.id + '"]');
      if (link) link.parentElement.classList.toggle('hidden', !visible);
      if (visible) shown++;
    });
    cards.forEach(function (c) { c.setAttribute('aria-pressed', String(c.getAttribute('data-group') === group)); });
    document.getElementById('shown-count').textContent = String(shown);
  }
  cards.forEach(function (c) {
    c.addEventListener('click', function () {
      var g = c.getAttribute('data-group');
      group = g === group ? 'all' : g;
      apply();
    });
  });
  area.addEventListener('change', apply);
  apply();
})();
`;

function anchor(r: Pick<ScenarioResult, 'id'>): string {
  return `r-${r.id.replace(/[^a-z0-9-]/gi, '-')}`;
}

const headerLines = (hs: Record<string, string>) =>
  Object.entries(hs)
    .map(([k, v]) => `\n${k}: ${v}`)
    .join('');

/** A message body: a web page behind its own toggle, anything else shown. */
function bodyBlock(m: { headers: Record<string, string>; body?: string }): string {
  if (m.body === undefined || m.body === '') return '';
  if (isPage(m))
    return (
      `<details class="page"><summary>page body (${m.body.length} ` +
      `characters)</summary><pre>${h(m.body)}</pre></details>`
    );
  return `<pre>${h(m.body)}</pre>`;
}

function transcript(e: HttpEvidence, decisive: boolean): string {
  const status = e.response ? String(e.response.status) : 'no response';
  const mark = decisive ? '<mark class="decisive">deciding exchange</mark>' : '';
  const response = e.response
    ? `<pre>${h(`HTTP ${e.response.status}${headerLines(e.response.headers)}`)}</pre>${bodyBlock(e.response)}`
    : `<pre>${h(`no response: ${e.error ?? 'unknown'}`)}</pre>`;
  return (
    `<details class="exchange${decisive ? ' decisive' : ''}"${decisive ? ' open' : ''}><summary>${mark}` +
    `${h(e.label ? `${e.label}: ` : '')}${h(e.request.method)} ${h(e.request.url)} → ${h(status)} <span ` +
    `class="meta">(${e.durationMs} ms)</span></summary>` +
    `<pre>${h(`${e.request.method} ${e.request.url}${headerLines(e.request.headers)}`)}</pre>${bodyBlock(e.request)}` +
    `${response}</details>`
  );
}

/** A screenshot's address from the report: its path relative to the report folder, or a file URL. */
function screenshotHref(path: string): string {
  return isAbsolute(path) ? pathToFileURL(path).href : path.split('/').map(encodeURIComponent).join('/');
}

function screenshot(e: ScreenshotEvidence): string {
  const href = h(screenshotHref(e.path));
  const label = h(e.label ?? 'screenshot');
  return (
    `<figure class="shot"><a href="${href}" target="_blank" rel="noopener"><img src="${href}" alt="${label}" ` +
    `loading="lazy"></a><figcaption>${label}</figcaption></figure>`
  );
}

function evidence(e: Evidence, deciding?: HttpEvidence): string {
  switch (e.kind) {
    case 'http':
      return transcript(e, e === deciding);
    case 'screenshot':
      return screenshot(e);
    case 'counterexample':
      return counterexample(e);
    case 'note':
      return `<p class="note">${e.label ? `<b>${h(e.label)}:</b> ` : ''}${h(e.text)}</p>`;
  }
}

/** A property's shrunk counterexample, seed and the options that replay it (shown, not folded). */
function counterexample(e: CounterexampleEvidence): string {
  return (
    `<div class="counterexample"><b>Counterexample${e.label ? ` (${h(e.label)})` : ''}</b><pre>${h(e.value)}</pre>` +
    `<p class="meta">property seed ${e.seed} (from the run's seed and the scenario id) · ` +
    `${e.runs} run${e.runs === 1 ? '' : 's'}${e.path ? ` · fast-check path ${h(e.path)}` : ''}</p>` +
    `<p>Replay: add <code>${h(e.replay)}</code> to the same run command (same target and profile).</p></div>`
  );
}

/** The reproduce block: the replay options and the deciding request as curl. */
function reproduce(report: Report, r: ScenarioResult, deciding: HttpEvidence | undefined): string {
  const replay = `<p>Replay the scenario: <code class="replay">${h(replayCommand(report, r))}</code></p>`;
  if (!deciding) return `<div class="reproduce"><h3>Reproduce</h3>${replay}</div>`;
  const curl = curlCommand(deciding);
  const env = curl.env.length
    ? `<p class="meta">Set first: ${curl.env.map((n) => `<code>${h(n)}</code> (${h(envHint(n))})`).join('; ')}.</p>`
    : '';
  return (
    `<div class="reproduce"><h3>Reproduce</h3>${replay}<p>The deciding request:</p>${env}<pre ` +
    `class="curl">${h(curl.command)}</pre></div>`
  );
}

function requirementLinks(r: ScenarioResult): string {
  return r.requirements
    .map((q) => {
      const text = `${q.level} ${q.label}`;
      const link = q.url ? `<a href="${h(q.url)}" target="_blank" rel="noopener">${h(text)}</a>` : h(text);
      return q.applies ? link : `<s title="not counted in this profile">${link}</s>`;
    })
    .join(' · ');
}

function result(report: Report, r: ScenarioResult): string {
  const group = groupOf(r);
  const badge = r.expected ? 'expected' : r.status;
  const kind = kindLabel(r);
  const tags =
    `${kind ? `<span class="tag k-${kind}">${kind}</span>` : ''}<span ` +
    `class="tag">${h(r.severity)}</span>${r.level ? `<span class="tag">${r.level}</span>` : ''}`;
  const head = `<h2><span class="badge b-${badge}">${h(resultLabel(r))}</span>${h(r.id)}${tags}</h2>`;
  const open =
    `<section class="result g-${group}${group === 'passed' || group === 'skipped' ? ' compact' : ''}" ` +
    `id="${anchor(r)}" data-status="${r.status}" data-group="${group}" data-area="${h(r.area)}">`;
  const detail = resultDetail(r);
  const meta =
    `<p class="meta">${requirementLinks(r)}<br>${r.durationMs} ` +
    `ms${r.catches.length ? ` · catches ${h(r.catches.join(', '))}` : ''}</p>`;
  const log = r.log?.length ? `<details><summary>Log</summary><pre>${h(r.log.join('\n'))}</pre></details>` : '';
  if (!reproducible(r)) {
    // Passed, skipped and errors: one line, the rest folded.
    const ev = r.evidence.length
      ? `<details><summary>Evidence ` +
        `(${r.evidence.length})</summary>${r.evidence.map((e) => evidence(e)).join('')}</details>`
      : '';
    if (group === 'passed' || group === 'skipped') {
      // One line; the line itself opens the details.
      const line =
        `<summary class="line"><span class="badge ` +
        `b-${badge}">${h(resultLabel(r))}</span><b>${h(r.id)}</b>${tags}<span ` +
        `class="title">${h(r.title)}</span>${detail ? `<span class="meta"> — ${h(detail)}</span>` : ''}</summary>`;
      return `${open}\n<details>${line}${meta}${ev}${log}</details></section>`;
    }
    return (
      `${open}\n${head}<p ` +
      `class="title">${h(r.title)}</p>${detail ? `<p class="message">${h(detail)}</p>` : ''}${meta}${ev}` +
      `${log}</section>`
    );
  }
  const findings = (r.findings ?? [])
    .filter((f) => f.message !== r.message)
    .map((f) => `<p>also <b>${h(f.status)}</b>: ${h(f.message)}</p>`)
    .join('');
  const shown = r.evidence.filter((e): e is CounterexampleEvidence => e.kind === 'counterexample');
  const deciding = decidingExchange(r)?.evidence;
  const exchanges = r.evidence.filter((e): e is HttpEvidence => e.kind === 'http' && e !== deciding);
  const other = r.evidence.filter((e) => e.kind === 'screenshot' || e.kind === 'note');
  const others = exchanges.length
    ? `<details><summary>Other exchanges ` +
      `(${exchanges.length})</summary>${exchanges.map((e) => transcript(e, false)).join('')}</details>`
    : '';
  return (
    `${open}\n${head}<p class="title">${h(r.title)}</p>
${detail ? `<p class="message">${h(detail)}</p>` : ''}${findings}${shown.map(counterexample).join('')}
${reproduce(report, r, deciding)}${deciding ? transcript(deciding, true) : ''}${others}` +
    `${other.map((e) => evidence(e)).join('')}${meta}${log}</section>`
  );
}

function flawsBanner(report: Report): string {
  const line = plantedFlawsLine(report);
  return line
    ? `<div class="flaws" id="planted-flaws" ` +
        `role="alert"><b>${h(line.slice(0, line.indexOf(':') + 1))}</b>${h(line.slice(line.indexOf(':') + 1))}</div>`
    : '';
}

function baselineBox(report: Report): string {
  const b = report.baseline;
  if (!b) return '';
  const [first] = baselineLines(report);
  const link = (id: string) => `<a href="#${anchor({ id })}">${h(id)}</a>`;
  const items = (label: string, cs: typeof b.newFailures) =>
    cs.length
      ? `<li><b>${label}:</b> ${cs.map((c) => `${link(c.id)} (${h(c.from)} → ${h(c.to)})`).join(', ')}</li>`
      : '';
  return (
    `<div class="baseline" ` +
    `id="baseline"><b>${h(first!)}</b><ul>${items('new failures', b.newFailures)}${items('fixed', b.fixed)}` +
    `${items('changed', b.changed)}</ul></div>`
  );
}

export function renderHtml(report: Report): string {
  const ordered = orderResults(report.results);
  const counts = groupCounts(report.results);
  const shownGroups = GROUPS.filter((g) => counts[g] > 0 || !['unclassified', 'expected'].includes(g));
  const card = (g: Group | 'all', n: number, label: string) =>
    `<button type="button" class="card g-${g}${n ? '' : ' zero'}" data-group="${g}" ` +
    `aria-pressed="${g === 'all'}"><b>${n}</b>${h(label)}</button>`;
  const cards = [
    ...shownGroups.map((g) => card(g, counts[g], GROUP_LABEL[g])),
    card('all', report.results.length, 'all'),
  ].join('');
  const areas = [...new Set(report.results.map((r) => r.area))].sort();
  const nav = ordered
    .map(
      (r) =>
        `<li><span class="badge b-${r.expected ? 'expected' : r.status}">${h(resultLabel(r))}</span><a ` +
        `href="#${anchor(r)}">${h(r.id)}</a></li>`,
    )
    .join('');
  return (
    `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance report: ${h(report.target.issuer)}</title><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body><header><h1>OAuth 2.0 / OpenID Connect conformance report</h1>
<p>${h(report.target.issuer)} · ${h(report.tool.name)} ${h(report.tool.version)} · ${h(report.startedAt)} · ` +
    `profile ${h(report.profile)} · seed ${report.seed}</p>${
      kindLine(report) ? `<p class="meta">${h(kindLine(report)!)}</p>` : ''
    }</header>
<main>
${flawsBanner(report)}${baselineBox(report)}
<div class="cards" role="group" aria-label="Show only">${cards}</div>
<div class="bar"><span>${h(summaryLine(report))} · ${h(splitLine(report.results))}</span>
<label>Area <select id="filter-area"><option ` +
    `value="">all</option>${areas.map((a) => `<option value="${h(a)}">${h(a)}</option>`).join('')}</select></label>
<span><span id="shown-count">${report.results.length}</span> shown</span></div>
${(report.notices ?? []).map((n) => `<p class="meta">note: ${h(n)}</p>`).join('')}
${ordered.map((r) => result(report, r)).join('\n')}
<details><summary>All scenarios (${report.results.length})</summary><nav><ul>${nav}</ul></nav></details>
</main><script>${SCRIPT}</script></body></html>
`
  );
}
