/**
 * HTML rendering with escaping by construction: every value interpolated into an `html`
 * template is escaped unless it is itself the result of `html` (already safe markup).
 */

import { createHash } from 'node:crypto';
import type { Lang } from './locale.ts';

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** The CSP source that allows one inline script (or event handler, with 'unsafe-hashes') by its SHA-256. */
export function scriptSource(script: string): string {
  return `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
}

/**
 * A JSON value to embed in a `<script type="application/json">` data block: `<`, `>` and `&` escaped so that no
 * `</script>` or comment can end the block early.
 */
export function jsonData(value: unknown): SafeHtml {
  return new SafeHtml(JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026'));
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ''), ''));
}

const STYLE = `
  :root { color-scheme: light; --accent: #2456c9; --muted: #5b6473; --border: #d7dce5; }
  * { box-sizing: border-box; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f3f5f9;
         font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d2330; }
  main { width: min(26rem, calc(100vw - 2rem)); background: #fff; border: 1px solid var(--border);
         border-radius: 12px; padding: 2rem; box-shadow: 0 4px 18px rgba(20, 30, 60, .08); }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  p { margin: .5rem 0 1rem; color: var(--muted); }
  label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
  input[type=text], input[type=password] { width: 100%; padding: .6rem .75rem; font: inherit;
         border: 1px solid var(--border); border-radius: 8px; }
  input:focus, button:focus { outline: 3px solid rgba(36, 86, 201, .35); outline-offset: 1px; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
  button { flex: 1; padding: .65rem 1rem; font: inherit; font-weight: 600; border-radius: 8px;
           border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: var(--accent); }
  ul.scopes { padding-left: 1.2rem; margin: .5rem 0 0; }
  ul.scopes li { margin: .25rem 0; }
  code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; }
  .error { background: #fdecec; border: 1px solid #f3b7b7; color: #8a1f1f; border-radius: 8px;
           padding: .6rem .75rem; margin: 1rem 0 0; }
  .client { color: #1d2330; font-weight: 600; }
`;

/**
 * A complete page: inline style only, no external resources, and no scripts but the ones `scripts` names (each allowed
 * by its hash in the page's Content-Security-Policy, see `scriptSource`).
 */
export function page(title: string, body: SafeHtml, lang: Lang = 'en', scripts: readonly string[] = []): string {
  const inline = scripts.map((script) => html`<script>${new SafeHtml(script)}</script>`);
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
${inline}
</body>
</html>
`.value;
}
