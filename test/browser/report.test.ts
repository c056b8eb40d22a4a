/**
 * report.html in Chromium as a reviewer meets it, on a made-up 66-result report with every kind
 * of result (test/support/report-fixture.ts): the results in reading order, the first failure in
 * view without scrolling at 1280×800, the count cards filtering when clicked, the reproduce block
 * (curl with secrets as $ENV names), the deciding exchange open and the others folded, planted
 * flaws and the baseline at the top, and no console errors. The screenshot stays in the temp folder.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserHost } from '../../harness/login/chromium.ts';
import { GROUPS, type Group, groupCounts } from '../../reports/format.ts';
import { renderHtml } from '../../reports/html.ts';
import { SECRET, bigReport } from '../support/report-fixture.ts';

const host = new BrowserHost();
let dir: string;
let page: Page;
const problems: string[] = [];
const report = bigReport(66);

// A 1×1 PNG for the screenshot the fixture names.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'idpc-report-'));
  await mkdir(path.join(dir, 'screenshots', 'code.single-use'), { recursive: true });
  await writeFile(path.join(dir, 'screenshots', 'code.single-use', '01-consent.png'), PNG);
  await writeFile(path.join(dir, 'report.html'), renderHtml(report));
  const browser = await host.newContext();
  page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(pathToFileURL(path.join(dir, 'report.html')).href);
}, 60_000);
afterAll(async () => {
  await page?.context().close();
  await host.close();
});

const visible = () => page.locator('section.result:visible').count();
const shown = () => page.locator('#shown-count').innerText();

describe('report.html in Chromium (66 results)', () => {
  it('shows the first failure without scrolling at 1280×800, after the planted flaws and the baseline', async () => {
    await page.screenshot({ path: path.join(dir, 'report-top.png') });
    const first = page.locator('section.result').first();
    expect(await first.getAttribute('id')).toBe('r-code-single-use');
    const heading = await first.locator('h2').boundingBox();
    const message = await first.locator('.message').boundingBox();
    expect(heading!.y).toBeGreaterThan(0);
    expect(message!.y + message!.height).toBeLessThan(800);
    expect(await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)).toBe(0);
    const flaws = await page.locator('#planted-flaws').boundingBox();
    expect(flaws!.y).toBeLessThan(heading!.y);
    expect(await page.locator('#planted-flaws').innerText()).toContain(
      'Planted flaws were on: code-reuse-allowed, pkce-plain-allowed',
    );
    expect(await page.locator('#baseline').innerText()).toContain('new failures: code.single-use (passed → failed)');
    expect(await page.locator('#baseline a[href="#r-code-single-use"]').count()).toBe(1);
  });

  it(
    'orders the results by group: security, interop, unclassified, warnings, errors, expected, ' + 'passed, skipped',
    async () => {
      const groups = await page
        .locator('section.result')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-group') as string));
      expect(groups).toHaveLength(66);
      const ranks = groups.map((g) => GROUPS.indexOf(g as Group));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
      expect(groups.slice(0, 6)).toEqual(['security', 'interop', 'unclassified', 'warning', 'error', 'expected']);
    },
  );

  it(
    'opens the deciding exchange, folds the other exchanges and the page bodies, and shows the ' + 'reproduce block',
    async () => {
      const section = page.locator('#r-code-single-use');
      const decisive = section.locator('details.exchange.decisive');
      expect(await decisive.count()).toBe(1);
      expect(await decisive.getAttribute('open')).toBe('');
      expect(await decisive.locator('summary').innerText()).toContain('deciding exchange');
      expect(await decisive.locator('pre').filter({ hasText: '[REDACTED:access_token:1]' }).isVisible()).toBe(true);
      const others = section.locator('details:has(> summary:text("Other exchanges (2)"))');
      expect(await others.getAttribute('open')).toBeNull();
      expect(await section.locator('details.page').first().getAttribute('open')).toBeNull();
      const reproduce = section.locator('.reproduce');
      expect(await reproduce.isVisible()).toBe(true);
      const curl = await reproduce.locator('pre.curl').innerText();
      expect(curl).toContain('-u "$CLIENT_ID:$CLIENT_SECRET"');
      expect(curl).toContain('"$CODE_2"');
      expect(curl).not.toContain('REDACTED');
      expect(await reproduce.locator('code.replay').innerText()).toBe(
        'idp-conformance run --target "$TARGET_CONFIG" --flaw code-reuse-allowed --flaw pkce-plain-allowed --seed 42 ' +
          '--only code.single-use',
      );
      expect(await page.content()).not.toContain(SECRET);
      // The screenshot loads from the file beside the report.
      const img = section.locator('figure.shot img');
      await img.scrollIntoViewIfNeeded();
      await expect
        .poll(() =>
          img.evaluate((el: { complete: boolean; naturalWidth: number }) => (el.complete ? el.naturalWidth : 0)),
        )
        .toBeGreaterThan(0);
      // A passed result is one line with its details folded.
      const passed = page.locator('#r-code-happy-path');
      expect((await passed.boundingBox())!.height).toBeLessThan(50);
      await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    },
  );

  it('filters with the count cards (a second click shows all again) and the area select', async () => {
    const counts = groupCounts(report.results);
    expect(await visible()).toBe(66);
    for (const g of ['security', 'interop', 'warning', 'passed'] as const) {
      const card = page.locator(`button.card[data-group="${g}"]`);
      expect(await card.locator('b').innerText()).toBe(String(counts[g]));
      await card.click();
      expect(await card.getAttribute('aria-pressed')).toBe('true');
      expect(await visible()).toBe(counts[g]);
      expect(await shown()).toBe(String(counts[g]));
      const groups = await page
        .locator('section.result:visible')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-group')));
      expect(new Set(groups)).toEqual(new Set([g]));
    }
    await page.locator('button.card[data-group="passed"]').click();
    expect(await visible()).toBe(66);
    await page.locator('button.card[data-group="passed"]').click();
    await page.locator('#filter-area').selectOption('pkce');
    const pkcePassed = report.results.filter(
      (r) => r.area === 'pkce' && r.status === 'passed' && !r.unexpectedPass,
    ).length;
    expect(await visible()).toBe(pkcePassed);
    await page.locator('button.card[data-group="all"]').click();
    expect(await visible()).toBe(report.results.filter((r) => r.area === 'pkce').length);
    await page.locator('#filter-area').selectOption('');
    expect(await visible()).toBe(66);
    expect(problems).toEqual([]);
  });
}, 120_000);
