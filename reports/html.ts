/**
 * report.html: one page with everything inline (no external resources): summary, filters by
 * status and area (inline JS), jump links, and each result with its requirement links and
 * evidence, HTTP transcripts collapsible, screenshots shown from the files beside the report.
 * Every value is escaped; the data lives in the markup, not in a script.
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CounterexampleEvidence, Evidence, HttpEvidence, Report, ScenarioResult, ScreenshotEvidence, Status } from '../harness/results.ts';
import { resultDetail, resultLabel, summaryLine } from './format.ts';

export function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
const h = htmlEscape;

const STATUSES: Status[] = ['failed', 'warning', 'error', 'passed', 'skipped'];

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d232a;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
header p{margin:0;color:#c9d1d9}main{padding:16px 24px;max-width:1200px}
.cards{display:flex;gap:8px;flex-wrap:wrap;margin:12px 0}.card{background:#fff;border-radius:6px;padding:8px 14px;border-left:5px solid #999}
.card b{font-size:20px;display:block}.filters{background:#fff;padding:10px 14px;border-radius:6px;margin:12px 0;display:flex;gap:16px;flex-wrap:wrap;align-items:center}
nav ul{columns:3;list-style:none;padding:0;font-size:13px}nav li{margin:2px 0}
.result{background:#fff;border-radius:6px;padding:10px 14px;margin:10px 0;border-left:5px solid #999;overflow-wrap:anywhere}
.note{white-space:pre-line}
.result h2{font-size:15px;margin:0 0 4px}.result .title{color:#444;margin:0 0 6px}
.badge{display:inline-block;font-size:11px;font-weight:700;padding:1px 6px;border-radius:3px;color:#fff;margin-right:6px;vertical-align:middle}
.s-passed{border-color:#1a7f37}.s-failed{border-color:#cf222e}.s-warning{border-color:#bf8700}.s-skipped{border-color:#8c959f}.s-error{border-color:#8250df}
.b-passed{background:#1a7f37}.b-failed{background:#cf222e}.b-warning{background:#bf8700}.b-skipped{background:#8c959f}.b-error{background:#8250df}.b-expected{background:#0969da}
.message{margin:6px 0;font-weight:600}.meta{color:#57606a;font-size:12px}
pre{background:#f0f2f4;padding:8px;overflow:auto;max-height:360px;white-space:pre-wrap;word-break:break-all;font-size:12px}
details{margin:4px 0}summary{cursor:pointer}.hidden{display:none}
.counterexample{border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:6px 0;background:#fffbe6}.counterexample pre{margin:4px 0}
figure.shot{display:inline-block;margin:6px 10px 6px 0;vertical-align:top;max-width:260px}
figure.shot img{display:block;width:260px;height:auto;border:1px solid #d0d7de;border-radius:4px;background:#fff}
figure.shot figcaption{font-size:12px;color:#57606a;margin-top:2px}
`;

const SCRIPT = `
(function () {
  var boxes = document.querySelectorAll('input[data-filter-status]');
  var area = document.getElementById('filter-area');
  function apply() {
    var on = {};
    boxes.forEach(function (b) { on[b.getAttribute('data-filter-status')] = b.checked; });
    var chosen = area.value;
    var shown = 0;
    document.querySelectorAll('.result').forEach(function (el) {
      var visible = on[el.getAttribute('data-status')] && (chosen === '' || el.getAttribute('data-area') === chosen);
      el.classList.toggle('hidden', !visible);
      var link = document.querySelector('nav a[href="#' + el.id + '"]');
      if (link) link.parentElement.classList.toggle('hidden', !visible);
      if (visible) shown++;
    });
    document.getElementById('shown-count').textContent = String(shown);
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  area.addEventListener('change', apply);
  apply();
})();
`;

function anchor(r: ScenarioResult): string {
  return `r-${r.id.replace(/[^a-z0-9-]/gi, '-')}`;
}

function transcript(e: HttpEvidence): string {
  const headers = (hs: Record<string, string>) => Object.entries(hs).map(([k, v]) => `${k}: ${v}`).join('\n');
  const req = `${e.request.method} ${e.request.url}\n${headers(e.request.headers)}${e.request.body ? `\n\n${e.request.body}` : ''}`;
  const res = e.response
    ? `HTTP ${e.response.status}\n${headers(e.response.headers)}${e.response.body ? `\n\n${e.response.body}` : ''}`
    : `no response: ${e.error ?? 'unknown'}`;
  const status = e.response ? String(e.response.status) : 'no response';
  return `<details><summary>${h(e.label ? `${e.label}: ` : '')}${h(e.request.method)} ${h(e.request.url)} → ${h(status)} <span class="meta">(${e.durationMs} ms)</span></summary><pre>${h(req)}</pre><pre>${h(res)}</pre></details>`;
}

/** A screenshot's address from the report: its path relative to the report folder, or a file URL. */
function screenshotHref(path: string): string {
  return isAbsolute(path) ? pathToFileURL(path).href : path.split('/').map(encodeURIComponent).join('/');
}

function screenshot(e: ScreenshotEvidence): string {
  const href = h(screenshotHref(e.path));
  const label = h(e.label ?? 'screenshot');
  return `<figure class="shot"><a href="${href}" target="_blank" rel="noopener"><img src="${href}" alt="${label}" loading="lazy"></a><figcaption>${label}</figcaption></figure>`;
}

function evidence(e: Evidence): string {
  switch (e.kind) {
    case 'http': return transcript(e);
    case 'screenshot': return screenshot(e);
    case 'counterexample': return counterexample(e);
    case 'note': return `<p class="note">${e.label ? `<b>${h(e.label)}:</b> ` : ''}${h(e.text)}</p>`;
  }
}

/** A property's shrunk counterexample, seed and the options that replay it (shown, not folded). */
function counterexample(e: CounterexampleEvidence): string {
  return `<div class="counterexample"><b>Counterexample${e.label ? ` (${h(e.label)})` : ''}</b><pre>${h(e.value)}</pre>`
    + `<p class="meta">property seed ${e.seed} (from the run's seed and the scenario id) · ${e.runs} runs${e.path ? ` · fast-check path ${h(e.path)}` : ''}</p>`
    + `<p>Replay: add <code>${h(e.replay)}</code> to the same run command (same target and profile).</p></div>`;
}

function result(r: ScenarioResult): string {
  const badge = r.expected ? 'expected' : r.status;
  const reqs = r.requirements.map((q) => {
    const text = `${q.level} ${q.label}`;
    const link = q.url ? `<a href="${h(q.url)}" target="_blank" rel="noopener">${h(text)}</a>` : h(text);
    return q.applies ? link : `<s title="not counted in this profile">${link}</s>`;
  }).join(' · ');
  const detail = resultDetail(r);
  const findings = (r.findings ?? []).filter((f) => f.message !== r.message)
    .map((f) => `<p>also <b>${h(f.status)}</b>: ${h(f.message)}</p>`).join('');
  const shown = r.evidence.filter((e): e is CounterexampleEvidence => e.kind === 'counterexample');
  const folded = r.evidence.filter((e) => e.kind !== 'counterexample');
  const ev = folded.length ? `<details><summary>Evidence (${folded.length})</summary>${folded.map(evidence).join('')}</details>` : '';
  const log = r.log?.length ? `<details><summary>Log</summary><pre>${h(r.log.join('\n'))}</pre></details>` : '';
  return `<section class="result s-${r.status}" id="${anchor(r)}" data-status="${r.status}" data-area="${h(r.area)}">
<h2><span class="badge b-${badge}">${h(resultLabel(r))}</span>${h(r.id)}</h2>
<p class="title">${h(r.title)}</p>
${detail ? `<p class="message">${h(detail)}</p>` : ''}${findings}${shown.map(counterexample).join('')}
<p class="meta">${reqs}<br>severity ${h(r.severity)}${r.level ? ` · level ${r.level}` : ''} · ${r.durationMs} ms${r.catches.length ? ` · catches ${h(r.catches.join(', '))}` : ''}</p>
${ev}${log}</section>`;
}

export function renderHtml(report: Report): string {
  const s = report.summary;
  const cards: [string, number, Status][] = [['failed', s.failed, 'failed'], ['warnings', s.warnings, 'warning'], ['errors', s.errors, 'error'], ['passed', s.passed, 'passed'], ['skipped', s.skipped, 'skipped']];
  const areas = [...new Set(report.results.map((r) => r.area))].sort();
  const filters = STATUSES.map((st) => `<label><input type="checkbox" data-filter-status="${st}" checked> ${st}</label>`).join(' ');
  const nav = report.results.map((r) => `<li><span class="badge b-${r.expected ? 'expected' : r.status}">${h(resultLabel(r))}</span><a href="#${anchor(r)}">${h(r.id)}</a></li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance report: ${h(report.target.issuer)}</title><link rel="icon" href="data:,"><style>${CSS}</style></head>
<body><header><h1>OAuth 2.0 / OpenID Connect conformance report</h1>
<p>${h(report.target.issuer)} · ${h(report.tool.name)} ${h(report.tool.version)} · ${h(report.startedAt)}</p></header>
<main>
<div class="cards">${cards.map(([label, n, st]) => `<div class="card s-${st}"><b>${n}</b>${label}</div>`).join('')}</div>
<p>${h(summaryLine(report))}</p>
${(report.notices ?? []).map((n) => `<p class="meta">note: ${h(n)}</p>`).join('')}
<div class="filters"><span>Show:</span> ${filters}
<label>Area <select id="filter-area"><option value="">all</option>${areas.map((a) => `<option value="${h(a)}">${h(a)}</option>`).join('')}</select></label>
<span class="meta"><span id="shown-count">${report.results.length}</span> shown</span></div>
<nav><ul>${nav}</ul></nav>
${report.results.map(result).join('\n')}
</main><script>${SCRIPT}</script></body></html>
`;
}
