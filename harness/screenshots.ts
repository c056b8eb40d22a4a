/**
 * Screenshots as evidence: saved under the report folder as screenshots/<scenario id>/NN-label.png
 * and named in the result by that relative path, so report.html beside them links them. Without a
 * report folder they go to a temporary folder and the path is absolute. A scenario's folder is
 * emptied before its first screenshot of a run, so stale images never sit beside fresh ones.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SCREENSHOT_FOLDER = 'screenshots';

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'page';

export class ScreenshotStore {
  readonly #reportDir: string | undefined;
  #root: Promise<string> | undefined;
  readonly #counts = new Map<string, number>();

  constructor(reportDir?: string) {
    this.#reportDir = reportDir;
  }

  /** Saves one PNG for a scenario; returns the path its evidence names. */
  async save(scenarioId: string, label: string, png: Uint8Array): Promise<string> {
    this.#root ??= this.#reportDir ? Promise.resolve(this.#reportDir) : mkdtemp(join(tmpdir(), 'idp-conformance-'));
    const folder = join(await this.#root, SCREENSHOT_FOLDER, scenarioId);
    const n = (this.#counts.get(scenarioId) ?? 0) + 1;
    this.#counts.set(scenarioId, n);
    if (n === 1) await rm(folder, { recursive: true, force: true });
    await mkdir(folder, { recursive: true });
    const file = `${String(n).padStart(2, '0')}-${slug(label)}.png`;
    await writeFile(join(folder, file), png);
    return this.#reportDir ? `${SCREENSHOT_FOLDER}/${scenarioId}/${file}` : join(folder, file);
  }
}
