import { describe, expect, it } from 'vitest';
import { consentPage } from '../../reference/views/consent.ts';
import { errorPage } from '../../reference/views/error.ts';
import { escapeHtml, html } from '../../reference/views/html.ts';
import { loginPage } from '../../reference/views/login.ts';

const NASTY = `"><script>alert('x')</script>&amp;`;

describe('views escape every value', () => {
  it('escapeHtml covers the five significant characters', () => {
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });

  it('html escapes interpolations but not nested html', () => {
    expect(html`<p>${NASTY}</p>${html`<b>${'<i>'}</b>`}`.value).toBe(
      '<p>&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;</p><b>&lt;i&gt;</b>',
    );
  });

  it.each([
    ['login', loginPage({ action: NASTY, clientName: NASTY, username: NASTY, error: NASTY })],
    ['consent', consentPage({ action: NASTY, clientName: NASTY, clientId: NASTY, scopes: [NASTY, 'openid'] })],
    ['error', errorPage({ error: NASTY, description: NASTY })],
  ])('the %s page contains no unescaped value', (_, page) => {
    expect(page).not.toContain('<script>');
    expect(page).not.toContain(`"><script`);
    expect(page).not.toContain(`alert('x')`);
    expect(page).toContain('&lt;script&gt;');
    expect(page).toMatch(/^<!doctype html>/);
  });
});
